/**
 * A line diff for showing what a test revision changed: the longest common subsequence
 * of the two texts' lines, then runs of unchanged lines folded down to a little context.
 * No DOM here, so it is tested in Node (test/web/line-diff.test.ts).
 *
 * @typedef {{ op: ' ' | '-' | '+', text: string }} DiffLine
 * @typedef {DiffLine | { op: '…', skipped: number }} ShownLine
 */

/** Above this many cells the table would cost seconds and memory: the texts are shown as replaced whole. */
const MAX_CELLS = 4_000_000;

/**
 * Lines of `before` and `after`, each kept (' '), removed ('-') or added ('+'), in order.
 * @param {string[]} before
 * @param {string[]} after
 * @returns {DiffLine[]}
 */
export function lineDiff(before, after) {
  // Common head and tail first: an edit usually touches a few lines of a long definition.
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const a = before.slice(head, before.length - tail);
  const b = after.slice(head, after.length - tail);
  /** @type {DiffLine[]} */
  const middle = [];
  if (a.length * b.length > MAX_CELLS) {
    for (const text of a) middle.push({ op: '-', text });
    for (const text of b) middle.push({ op: '+', text });
  } else {
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..], one flat array.
    const width = b.length + 1;
    const lcs = new Uint32Array((a.length + 1) * width);
    for (let i = a.length - 1; i >= 0; i--) {
      for (let j = b.length - 1; j >= 0; j--) {
        lcs[i * width + j] = a[i] === b[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      if (a[i] === b[j]) {
        middle.push({ op: ' ', text: a[i] });
        i++;
        j++;
      } else if (lcs[(i + 1) * width + j] >= lcs[i * width + j + 1]) middle.push({ op: '-', text: a[i++] });
      else middle.push({ op: '+', text: b[j++] });
    }
    while (i < a.length) middle.push({ op: '-', text: a[i++] });
    while (j < b.length) middle.push({ op: '+', text: b[j++] });
  }
  const same = (/** @type {string} */ text) => /** @type {DiffLine} */ ({ op: ' ', text });
  return [...before.slice(0, head).map(same), ...middle, ...before.slice(before.length - tail).map(same)];
}

/**
 * The diff as shown: changed lines with `context` unchanged lines around them, and each
 * longer unchanged run folded into one "… n unchanged lines" entry.
 * @param {DiffLine[]} diff
 * @param {number} [context]
 * @returns {ShownLine[]}
 */
export function foldUnchanged(diff, context = 3) {
  const near = diff.map(() => false);
  diff.forEach((line, k) => {
    if (line.op === ' ') return;
    for (let n = Math.max(0, k - context); n <= Math.min(diff.length - 1, k + context); n++) near[n] = true;
  });
  /** @type {ShownLine[]} */
  const shown = [];
  for (let k = 0; k < diff.length; ) {
    if (near[k]) {
      shown.push(diff[k++]);
      continue;
    }
    let end = k;
    while (end < diff.length && !near[end]) end++;
    shown.push({ op: '…', skipped: end - k });
    k = end;
  }
  return shown;
}
