/** A line diff (longest common subsequence) for showing what changed between two texts. */
interface DiffLine {
  op: "same" | "add" | "del";
  line: string;
}

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split("\n");
  const b = after.split("\n");
  const n = a.length;
  const m = b.length;
  // Large texts: fall back to whole-text replacement rather than an n*m table.
  if (n * m > 4_000_000) return [...a.map((line) => ({ op: "del" as const, line })), ...b.map((line) => ({ op: "add" as const, line }))];
  const dp = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      dp[i * (m + 1) + j] = a[i] === b[j] ? dp[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(dp[(i + 1) * (m + 1) + j]!, dp[i * (m + 1) + j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: "same", line: a[i]! });
      i++;
      j++;
    } else if (dp[(i + 1) * (m + 1) + j]! >= dp[i * (m + 1) + j + 1]!) out.push({ op: "del", line: a[i++]! });
    else out.push({ op: "add", line: b[j++]! });
  }
  while (i < n) out.push({ op: "del", line: a[i++]! });
  while (j < m) out.push({ op: "add", line: b[j++]! });
  return out;
}
