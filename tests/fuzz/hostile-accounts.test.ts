import fc from "fast-check";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { APP_URL, authRequest, setPassword, signedInCookie, uniqueIp } from "../helpers/auth";
import { createLearner, uid } from "../helpers/factories";
import { POST as acceptRoute } from "@/app/api/invitations/accept/route";
import { POST as signInFormRoute } from "@/app/api/auth/sign-in-form/route";
import { POST as signUpFormRoute } from "@/app/api/auth/sign-up-form/route";
import { POST as trpcPost, GET as trpcGet } from "@/app/api/trpc/[trpc]/route";
import { createInvitation, lookupInvitation } from "@/server/account/invitations";
import { getDb } from "@/server/db";
import { handleAuthRequest } from "@/server/auth/handler";

/**
 * The account doors under hostile input: invitation acceptance, the open sign-up,
 * the console's invitation procedures. One hostile field in an otherwise valid request (NUL, lone
 * surrogate, oversized, deeply nested, prototype-named extra keys), and whole hostile bodies:
 * always a 4xx with a code, and no user, account, invitation or audit row written or changed.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

type Hostile = { kind: "nul" | "surrogate" | "oversized" | "deep"; text: string };
const filler = fc.string({ maxLength: 8 });
const hostile: fc.Arbitrary<Hostile> = fc.oneof(
  fc.tuple(filler, filler).map(([a, b]) => ({ kind: "nul" as const, text: JSON.stringify(`${a}\u0000${b}`) })),
  fc.tuple(filler, fc.integer({ min: 0xd800, max: 0xdfff }), filler).map(([a, c, b]) => ({
    kind: "surrogate" as const,
    text: JSON.stringify(`${a}${String.fromCharCode(c)}${b}`),
  })),
  fc
    .integer({ min: 300_000, max: 400_000 })
    .map((n) => ({ kind: "oversized" as const, text: JSON.stringify("x".repeat(n)) })),
  fc
    .integer({ min: 100, max: 5_000 })
    .map((d) => ({ kind: "deep" as const, text: '{"a":['.repeat(d) + '"\\u0000"' + "]}".repeat(d) })),
);
const protoKeys = fc.subarray(["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf"]);

/** The body as JSON text with field `field` replaced by raw JSON text, and prototype-named keys on top. */
function withHostile(base: Record<string, unknown>, field: string, raw: string, extraKeys: string[]): string {
  const marker = `@@HOSTILE_${Math.random().toString(36).slice(2)}@@`;
  let text = JSON.stringify({ ...base, [field]: marker }).replace(JSON.stringify(marker), () => raw);
  for (const k of extraKeys) text = text.replace(/^\{/, `{"${k}":{"polluted":true,"role":"admin","token":"x"},`);
  return text;
}

async function fingerprint() {
  const db = getDb();
  const [users, accounts, invitations, audits] = await Promise.all([
    db.user.findMany({ select: { id: true, email: true, name: true, role: true }, orderBy: { id: "asc" } }),
    db.account.findMany({ select: { id: true, password: true }, orderBy: { id: "asc" } }),
    db.invitation.findMany({ orderBy: { id: "asc" } }),
    db.adminAuditLog.count(),
  ]);
  return JSON.stringify({ users, accounts, invitations, audits });
}

const codeOf = (body: unknown) => {
  const b = body as { code?: unknown; error?: { code?: unknown; data?: { appCode?: unknown } } } | null;
  return b?.error?.data?.appCode ?? b?.error?.code ?? b?.code;
};

function acceptRaw(body: string, contentType = "application/json") {
  return acceptRoute(
    new Request(`${APP_URL}/api/invitations/accept`, {
      method: "POST",
      headers: { "content-type": contentType, origin: APP_URL, "x-forwarded-for": uniqueIp() },
      body,
    }),
  );
}

let token: string;
beforeAll(async () => {
  token = new URL((await createInvitation(`${uid("fuzz")}@example.test`, null)).link).pathname.split("/").at(-1)!;
});
afterEach(() => {
  delete process.env.SIGNUP_MODE;
});

describe("hostile input at the account doors", () => {
  it(`${RUNS} invitation acceptances with one hostile field: 4xx with a code, nothing written`, async () => {
    const base = { token, password: "a-long-enough-password", repeat: "a-long-enough-password", name: "Ada" };
    const before = await fingerprint();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(base)), hostile, protoKeys, async (field, bad, extra) => {
        const res = await acceptRaw(withHostile(base, field, bad.text, extra));
        const body = await res.json();
        const what = `${field} ${bad.kind}: ${JSON.stringify(body).slice(0, 200)}`;
        expect(res.status, what).toBeGreaterThanOrEqual(400);
        expect(res.status, what).toBeLessThan(500);
        expect(typeof codeOf(body), what).toBe("string");
        if (bad.kind === "nul" || bad.kind === "surrogate") expect(codeOf(body), what).toBe("INVALID_REQUEST");
      }),
      { numRuns: RUNS },
    );
    expect(await fingerprint()).toBe(before);
    expect((await lookupInvitation(token)).state).toBe("valid");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 600_000);

  it("whole hostile bodies at the acceptance door: not JSON, arrays, deep nesting, 2 MB, prototype tokens", async () => {
    const before = await fingerprint();
    const cases: [string, string, number][] = [
      ["{not json", "application/json", 400],
      ["[]", "application/json", 400],
      ["null", "application/json", 400],
      ["[".repeat(20_000) + "]".repeat(20_000), "application/json", 400],
      ['{"a":'.repeat(5_000) + "1" + "}".repeat(5_000), "application/json", 400],
      [JSON.stringify({ token, password: "x".repeat(2_000_000) }), "application/json", 413],
      [JSON.stringify({ token: "__proto__", password: "a-long-enough-password" }), "application/json", 404],
      [JSON.stringify({ token: "toString", password: "a-long-enough-password" }), "application/json", 404],
      [JSON.stringify({ token: { toString: token }, password: "a-long-enough-password" }), "application/json", 404],
      [`{"__proto__": {"token": "${token}", "password": "a-long-enough-password"}}`, "application/json", 404],
      [JSON.stringify({ token, password: ["a-long-enough-password"] }), "application/json", 400],
      ["token=__proto__&password=a-long-enough-password", "application/x-www-form-urlencoded", 303],
      ["--x\r\n", "multipart/form-data; boundary=x", 303],
    ];
    for (const [body, type, status] of cases) {
      const res = await acceptRaw(body, type);
      expect([body.slice(0, 60), res.status]).toEqual([body.slice(0, 60), status]);
      if (status === 303) expect(res.headers.get("location")).toMatch(/^\/invite\/invalid\?error=[A-Z_]+$/);
      else expect(typeof codeOf(await res.json())).toBe("string");
    }
    expect(await fingerprint()).toBe(before);
  });

  it(`${RUNS} open sign-ups with one hostile field, and prototype-named emails: 4xx with a code, no account`, async () => {
    process.env.SIGNUP_MODE = "open";
    const before = await fingerprint();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("email", "password", "name"), hostile, protoKeys, async (field, bad, extra) => {
        const base = { email: `${uid("su")}@example.test`, password: "a-long-enough-password", name: "Sam" };
        const text = withHostile(base, field, bad.text, extra);
        const res = await handleAuthRequest(
          new Request(`${APP_URL}/api/auth/sign-up/email`, {
            method: "POST",
            headers: { "content-type": "application/json", origin: APP_URL, "x-forwarded-for": uniqueIp() },
            body: text,
          }),
        );
        const body = await res.json().catch(() => null);
        const what = `${field} ${bad.kind}: ${JSON.stringify(body).slice(0, 200)}`;
        expect(res.status, what).toBeGreaterThanOrEqual(400);
        expect(res.status, what).toBeLessThan(500);
        expect(typeof codeOf(body), what).toBe("string");
      }),
      { numRuns: RUNS },
    );
    for (const email of ["__proto__", "toString", "constructor@", "__proto__@example.test\u0000"]) {
      const res = await authRequest("/sign-up/email", {
        body: { email, password: "a-long-enough-password", name: "x" },
      });
      expect([email, res.status]).toEqual([email, 400]);
    }
    expect(await fingerprint()).toBe(before);
  }, 600_000);

  it("SIGNUP_MODE=invite or closed: the sign-up door answers 403 SIGN_UP_CLOSED and writes nothing", async () => {
    const before = await fingerprint();
    for (const mode of ["invite", "closed"]) {
      process.env.SIGNUP_MODE = mode;
      const res = await authRequest("/sign-up/email", {
        body: { email: `${uid("su")}@example.test`, password: "a-long-enough-password", name: "Sam" },
      });
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe("SIGN_UP_CLOSED");
    }
    expect(await fingerprint()).toBe(before);
  });

  it(`${RUNS} no-JavaScript sign-in and sign-up form posts with one hostile field: 303 back with a code or 413, nothing written`, async () => {
    process.env.SIGNUP_MODE = "open";
    const before = await fingerprint();
    // Form values as they arrive percent-encoded: a NUL anywhere, or oversized (under and over the
    // body limit). A form cannot carry a lone surrogate: its UTF-8 decoding makes one U+FFFD.
    const formValue = fc.oneof(
      fc.tuple(filler, filler).map(([a, b]) => `${encodeURIComponent(a)}%00${encodeURIComponent(b)}`),
      fc.integer({ min: 300_000, max: 2_000_000 }).map((n) => "x".repeat(n)),
    );
    const doors = [
      {
        route: signInFormRoute,
        path: "sign-in-form",
        fields: ["email", "password", "next"],
        back: /^\/sign-in\?error=[A-Za-z_]+/,
      },
      {
        route: signUpFormRoute,
        path: "sign-up-form",
        fields: ["name", "email", "password"],
        back: /^\/sign-in\?signup=[A-Za-z_]+$/,
      },
    ];
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 1 }), fc.nat({ max: 2 }), formValue, protoKeys, async (d, f, bad, extra) => {
        const door = doors[d]!;
        const base: Record<string, string> = {
          name: "Sam",
          email: `${uid("form")}@example.test`,
          password: "a-long-enough-password",
          next: "/",
        };
        const pairs = door.fields.map((name, i) => `${name}=${i === f ? bad : encodeURIComponent(base[name]!)}`);
        const body = [...extra.map((k) => `${k}=x`), ...pairs].join("&");
        const res = await door.route(
          new Request(`${APP_URL}/api/auth/${door.path}`, {
            method: "POST",
            headers: {
              "content-type": "application/x-www-form-urlencoded",
              origin: APP_URL,
              "x-forwarded-for": uniqueIp(),
            },
            body,
          }),
        );
        const what = `${door.path} ${door.fields[f]} ${bad.slice(0, 40)} (${bad.length})`;
        if (res.status === 413) return;
        expect(res.status, what).toBe(303);
        expect(res.headers.get("location"), what).toMatch(door.back);
        expect(
          res.headers.getSetCookie().some((c) => c.includes("session_token=")),
          what,
        ).toBe(false);
      }),
      { numRuns: RUNS },
    );
    expect(await fingerprint()).toBe(before);
  }, 600_000);

  it(`${RUNS} console invitation calls by an admin with one hostile field: 4xx with a code, nothing written`, async () => {
    const admin = await createLearner({ role: "admin" });
    await setPassword(admin.user.id, "admin-fuzz-password");
    const cookie = await signedInCookie(admin.user.email, "admin-fuzz-password");
    const invitationId = (await createInvitation(`${uid("target")}@example.test`, admin.user.id)).invitationId;
    const bases: [string, Record<string, unknown>][] = [
      ["admin.learners.invite", { email: `${uid("new")}@example.test` }],
      ["admin.learners.resend", { invitationId }],
      ["admin.learners.revoke", { invitationId }],
      ["admin.learners.list", { search: "ada" }],
    ];
    const before = await fingerprint();
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: bases.length - 1 }), hostile, protoKeys, async (b, bad, extra) => {
        const [path, base] = bases[b]!;
        const input = withHostile(base, Object.keys(base)[0]!, bad.text, extra);
        const res =
          path === "admin.learners.list"
            ? await trpcGet(
                new Request(`${APP_URL}/api/trpc/${path}?input=${encodeURIComponent(input)}`, { headers: { cookie } }),
              )
            : await trpcPost(
                new Request(`${APP_URL}/api/trpc/${path}`, {
                  method: "POST",
                  headers: { "content-type": "application/json", cookie, origin: APP_URL },
                  body: input,
                }),
              );
        const text = await res.text();
        const what = `${path} ${bad.kind}: ${text.slice(0, 200)}`;
        expect(res.status, what).toBeGreaterThanOrEqual(400);
        expect(res.status, what).toBeLessThan(500);
        expect(typeof codeOf(JSON.parse(text)), what).toBe("string");
      }),
      { numRuns: RUNS },
    );
    for (const email of ["__proto__", "toString", "constructor", "hasOwnProperty@"]) {
      const res = await trpcPost(
        new Request(`${APP_URL}/api/trpc/admin.learners.invite`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie, origin: APP_URL },
          body: JSON.stringify({ email }),
        }),
      );
      expect([email, res.status]).toEqual([email, 400]);
    }
    for (const id of ["__proto__", "toString", "constructor"]) {
      const res = await trpcPost(
        new Request(`${APP_URL}/api/trpc/admin.learners.revoke`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie, origin: APP_URL },
          body: JSON.stringify({ invitationId: id }),
        }),
      );
      expect([id, res.status]).toEqual([id, 404]);
    }
    expect(await fingerprint()).toBe(before);
  }, 600_000);
});
