import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";

const TSC = path.resolve("node_modules/typescript/bin/tsc");
const MARK = "// @ts-expect-error";

/**
 * A client team's view of an OpenAPI document: openapi-typescript generates `<name>.d.ts` from it
 * into a scratch folder, and a fixture beside it is compiled with tsc --strict. Each fixture line
 * marked `// @ts-expect-error` is something the generated types must refuse.
 */
export async function typedClient(doc: unknown, name: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "typed-client-"));
  // Request fields with a default stay optional in the types (the API applies the default).
  const ast = await openapiTS(JSON.parse(JSON.stringify(doc)), { defaultNonNullable: false });
  fs.writeFileSync(path.join(dir, `${name}.d.ts`), astToString(ast));
  const compile = (source: string) => {
    fs.writeFileSync(path.join(dir, "client.ts"), source);
    const run = spawnSync(
      process.execPath,
      [
        TSC,
        "--noEmit",
        "--strict",
        "--target",
        "es2022",
        "--module",
        "esnext",
        "--moduleResolution",
        "bundler",
        "client.ts",
      ],
      { cwd: dir, encoding: "utf8" },
    );
    const errors = [...run.stdout.matchAll(/^client\.ts\((\d+),\d+\): error (TS\d+)/gm)].map((m) => ({
      line: Number(m[1]),
      code: m[2],
    }));
    return { status: run.status, errors, output: run.stdout + run.stderr };
  };
  return {
    compile,
    /** The fixture as is: must compile cleanly (every marked line is refused, as marked). */
    compileFixture: (file: string) => compile(fs.readFileSync(file, "utf8")),
    /**
     * The fixture without its markers (each becomes a blank line, so line numbers stay): the lines
     * tsc refuses, and the lines that were marked (the line after each marker).
     */
    compileBare(file: string) {
      const lines = fs.readFileSync(file, "utf8").split("\n");
      const marked = lines.flatMap((l, i) => (l.trim().startsWith(MARK) ? [i + 2] : []));
      const result = compile(lines.map((l) => (l.trim().startsWith(MARK) ? "" : l)).join("\n"));
      const refused = [...new Set(result.errors.map((e) => e.line))].sort((a, b) => a - b);
      return { ...result, marked, refused };
    },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
