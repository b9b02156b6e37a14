import type { OutputSchemaVersion } from "../job-types/catalogue";

/**
 * The Runtime protocol's versions and the compatibility promise (docs/contract.md#versions-and-the-compatibility-promise).
 * The OpenAPI document carries RUNTIME_PROTOCOL_VERSION; a Runtime says which major it speaks in
 * the `Runtime-Protocol` request header ("2", "2.0" or "2.0.0"). A Runtime that says nothing is
 * served the previous major (1), as it was before the header existed. Each supported major keeps
 * its meaning until its sunset: its leases name the output schema version it knows, and its
 * answers carry `Deprecation` and `Sunset` headers once a newer major exists.
 */
export const RUNTIME_PROTOCOL_VERSION = "2.0.0";

/** The request header a Runtime names its protocol version in. */
export const PROTOCOL_HEADER = "runtime-protocol";

/** The majors the app serves, with the output schema version each one's leases name, and when each ends. */
export const PROTOCOL_MAJORS = {
  1: {
    outputSchemaVersion: "v1",
    /** RFC 9745: when the major was deprecated (the release that brought 2.0.0). */
    deprecatedAt: new Date("2026-12-08T00:00:00Z"),
    /** RFC 8594: the app answers this major until then (a 90-day window). */
    sunsetAt: new Date("2027-03-08T00:00:00Z"),
  },
  2: { outputSchemaVersion: "v2", deprecatedAt: null, sunsetAt: null },
} as const satisfies Record<
  number,
  { outputSchemaVersion: OutputSchemaVersion; deprecatedAt: Date | null; sunsetAt: Date | null }
>;
export type ProtocolMajor = keyof typeof PROTOCOL_MAJORS;
export const CURRENT_MAJOR: ProtocolMajor = 2;
/** What a Runtime that sends no header speaks: the protocol of the release before the header. */
export const DEFAULT_MAJOR: ProtocolMajor = 1;

/** A Runtime-Protocol header's major, DEFAULT_MAJOR without one; null when it names a major the app does not serve. */
export function protocolMajor(header: string | null | undefined): ProtocolMajor | null {
  if (header == null || header.trim() === "") return DEFAULT_MAJOR;
  const m = /^\s*(\d{1,3})(?:\.\d{1,6}){0,2}\s*$/.exec(header);
  if (!m) return null;
  const major = Number(m[1]);
  return Object.hasOwn(PROTOCOL_MAJORS, major) ? (major as ProtocolMajor) : null;
}

/** The full version a major is recorded and shown as ("1.x" for the release before the header). */
export const protocolLabel = (major: ProtocolMajor) =>
  major === CURRENT_MAJOR ? RUNTIME_PROTOCOL_VERSION : `${major}.x`;

/** The headers an answer in this major carries: Deprecation and Sunset once it is deprecated, with a link to the promise. */
export function deprecationHeaders(major: ProtocolMajor): Record<string, string> {
  const m: { deprecatedAt: Date | null; sunsetAt: Date | null } = PROTOCOL_MAJORS[major];
  if (!m.deprecatedAt) return {};
  return {
    deprecation: `@${Math.floor(m.deprecatedAt.getTime() / 1000)}`,
    ...(m.sunsetAt ? { sunset: m.sunsetAt.toUTCString() } : {}),
    link: '</internal/runtime/openapi.json>; rel="deprecation"',
  };
}

/** The deprecation of a recorded protocol version ("1.x", "2.0.0") as the console shows it, or null when it is current or unknown. */
export function deprecationOf(recorded: string | null) {
  const major = recorded ? protocolMajor(recorded.replace(/\.x$/, "")) : null;
  if (!major) return null;
  const m: { deprecatedAt: Date | null; sunsetAt: Date | null } = PROTOCOL_MAJORS[major];
  return m.deprecatedAt ? { deprecatedAt: m.deprecatedAt, sunsetAt: m.sunsetAt } : null;
}
