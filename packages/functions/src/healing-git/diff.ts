/** A unified diff split into files and hunks, enough to pair removed and added lines. */
export interface Hunk {
  file: string;
  removed: Array<{ text: string; index: number }>;
  added: Array<{ text: string; index: number }>;
}

export function parseDiff(text: string): Hunk[] {
  const hunks: Hunk[] = [];
  let file = '';
  let oldFile = '';
  let cur: Hunk | undefined;
  let i = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      cur = undefined;
      continue;
    }
    if (line.startsWith('--- ')) {
      oldFile = line.slice(4).replace(/^a\//, '');
      continue;
    }
    if (line.startsWith('+++ ')) {
      const f = line.slice(4);
      file = f === '/dev/null' ? oldFile : f.replace(/^b\//, '');
      continue;
    }
    if (line.startsWith('@@')) {
      cur = { file, removed: [], added: [] };
      hunks.push(cur);
      i = 0;
      continue;
    }
    if (!cur) continue;
    if (line.startsWith('-')) cur.removed.push({ text: line.slice(1), index: i++ });
    else if (line.startsWith('+')) cur.added.push({ text: line.slice(1), index: i++ });
    else i++;
  }
  return hunks;
}
