import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TSC = path.resolve("node_modules/typescript/bin/tsc");
const MARK = "// @ts-expect-error";

/**
 * A client team's view of an OpenAPI document: openapi-typescript generates `<name>.d.ts` from it
 * into a scratch folder, and a fixture beside it (which may call the API through openapi-fetch)
 * is compiled with tsc --strict. Each fixture line
 * marked `// @ts-expect-error` is something the generated types must refuse.
 */
export async function typedClient(doc: unknown, name: string) {
  // Inside the checkout (node_modules/.cache): the fixture imports openapi-fetch as a client would.
  const cache = path.resolve("node_modules/.cache");
  fs.mkdirSync(cache, { recursive: true });
  const dir = fs.mkdtempSync(path.join(cache, "typed-client-"));
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

/**
 * The two checks of a fixture against a generated client: as written it compiles cleanly (each
 * marked line is refused), and without its markers tsc fails on exactly the marked lines, so
 * every refusal is the document's.
 */
export function describeTypedClient(
  title: string,
  doc: () => unknown | Promise<unknown>,
  name: string,
  fixture: string,
  minMarked: number,
) {
  let client: Awaited<ReturnType<typeof typedClient>>;
  beforeAll(async () => {
    client = await typedClient(await doc(), name);
  });
  afterAll(() => client.remove());

  describe(title, () => {
    it("compiles the fixture: every refusal marked with @ts-expect-error is refused", { timeout: 120_000 }, () => {
      const result = client.compileFixture(fixture);
      expect(result.output).toBe("");
      expect(result.status).toBe(0);
    });

    it(
      "without the markers, fails on exactly the marked lines (the refusals are the document's)",
      { timeout: 120_000 },
      () => {
        const result = client.compileBare(fixture);
        expect(result.marked.length).toBeGreaterThanOrEqual(minMarked);
        expect(result.status).not.toBe(0);
        expect(result.refused).toEqual(result.marked);
      },
    );
  });
}
