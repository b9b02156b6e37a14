import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findHardcodedText } from "./hardcoded-text";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * What a learner (or a visitor to the sign-in page) sees: every component outside the admin
 * console, and every page outside /admin and the route handlers. New learner components land
 * here by default, so a hard-coded sentence in one fails this test until it is in the catalogues.
 */
function learnerFacingFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      const rel = path.relative(ROOT, full).split(path.sep).join("/");
      if (statSync(full).isDirectory()) {
        if (["components/admin", "components/trpc", "app/admin", "app/api", "app/internal"].includes(rel)) continue;
        walk(full);
      } else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) {
        if (rel.startsWith("app/") && !/\/(page|layout|error|not-found|loading|global-error)\.tsx$/.test(rel)) continue;
        out.push(rel);
      }
    }
  };
  walk(path.join(ROOT, "components"));
  walk(path.join(ROOT, "app"));
  return out.sort();
}

describe("learner-facing components carry no hard-coded sentences", () => {
  const files = learnerFacingFiles();

  it("scans the learner, auth and shared components and the learner pages", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "app/layout.tsx",
        "app/page.tsx",
        "app/sign-in/page.tsx",
        "components/auth/sign-in-form.tsx",
        "components/learner/learner-page.tsx",
        "components/learner/results/quiz-player.tsx",
      ]),
    );
    expect(files.some((f) => f.startsWith("components/admin/") || f.startsWith("app/admin/"))).toBe(false);
  });

  it.each(files)("%s", (file) => {
    const findings = findHardcodedText(file, readFileSync(path.join(ROOT, file), "utf8"));
    expect(findings.map((f) => `${f.file}:${f.line} ${f.why}: ${JSON.stringify(f.text)}`)).toEqual([]);
  });
});

describe("the scanner itself", () => {
  const scan = (source: string) => findHardcodedText("x.tsx", source).map((f) => [f.why, f.text]);

  it("finds text in JSX, text attributes, props, strings chosen in JSX and sentences in handlers", () => {
    expect(
      scan(`
        export function A({ ok }: { ok: boolean }) {
          const [n, setN] = useState("");
          const onError = () => setN("Could not save your key.");
          return (
            <div className="mt-2 text-sm" aria-label="Close dialog" data-testid="a b">
              Hello there
              <input placeholder="Your email" title={\`Card \${n}\`} />
              <Field label="Email" idle={ok ? "Sign in" : "Signing in…"} />
              {ok ? "Done" : null}
              {ok && \`\${n} left\`}
              <p>学习状态</p>
            </div>
          );
        }
        const TYPE_INFO = { quiz: { title: "Practice quiz" }, code: "quiz_generation" };
      `),
    ).toEqual([
      ["sentence in code", "Could not save your key."],
      ["attribute aria-label", "Close dialog"],
      ["JSX text", "Hello there"],
      ["attribute placeholder", "Your email"],
      ["attribute title", "Card"],
      ["attribute label", "Email"],
      ["attribute idle", "Sign in"],
      ["attribute idle", "Signing in…"],
      ["string in JSX", "Done"],
      ["string in JSX", "left"],
      ["JSX text", "学习状态"],
      ["sentence in code", "Practice quiz"],
    ]);
  });

  it("lets catalogue calls, symbols, class lists, keys, allowed names and code through", () => {
    expect(
      scan(`
        "use client";
        import { useTranslations } from "next-intl";
        type Tone = "ok" | "Not a sentence";
        export function B({ n }: { n: number }) {
          const t = useTranslations("quiz");
          const tone = { pending: "bg-slate-100 text-slate-700 ring-slate-300" };
          return (
            <div className={\`rounded \${n ? "bg-white" : "bg-slate-50"}\`} id="quiz-count" role="status">
              {t("score", { score: n, total: 3 })} · {n}% — ✓ ▲
              <span aria-hidden="true">••••</span>
              <option value="zh-CN">简体中文</option>
              {t.rich("forTarget", { target: "x", b: (c) => <b>{c}</b> })}
              <span>DeepSeek</span>
            </div>
          );
        }
      `),
    ).toEqual([]);
  });
});
