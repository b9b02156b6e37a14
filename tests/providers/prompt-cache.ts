/**
 * DeepSeek's context cache as its documentation describes it, for the fake servers: a request's
 * prompt is its messages in order; the part of it that repeats the start of a prompt seen before
 * is served from the cache, counted in whole units of 64 tokens (a shorter repeat is not cached);
 * the usage says `prompt_cache_hit_tokens` and `prompt_cache_miss_tokens` (which add up to
 * `prompt_tokens`). Tokens are approximated: one per CJK character, one per 4 other characters.
 */
export const CACHE_UNIT = 64;

const CJK = /[\u3000-\u9fff\uf900-\ufaff\uff00-\uffef]/u;

/** The prompt as a list of token strings. */
export function tokensOf(messages: { role?: unknown; content?: unknown }[]): string[] {
  const text = messages.map((m) => `${String(m.role ?? "")}\n${String(m.content ?? "")}\n`).join("");
  const out: string[] = [];
  let run = "";
  for (const ch of text) {
    if (CJK.test(ch)) {
      if (run) out.push(run);
      run = "";
      out.push(ch);
    } else {
      run += ch;
      if (run.length === 4) {
        out.push(run);
        run = "";
      }
    }
  }
  if (run) out.push(run);
  return out;
}

function commonPrefix(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** One fake provider's cache: every prompt it has answered. */
export function promptCache() {
  const seen: string[][] = [];
  return {
    /** The usage of a request with these messages (and `completion` tokens), then remembers it. */
    usage(messages: { role?: unknown; content?: unknown }[], completion = 50) {
      const tokens = tokensOf(messages);
      const longest = seen.reduce((best, s) => Math.max(best, commonPrefix(tokens, s)), 0);
      const hit = Math.floor(longest / CACHE_UNIT) * CACHE_UNIT;
      seen.push(tokens);
      return {
        prompt_tokens: tokens.length,
        completion_tokens: completion,
        total_tokens: tokens.length + completion,
        prompt_cache_hit_tokens: hit,
        prompt_cache_miss_tokens: tokens.length - hit,
      };
    },
  };
}
