/**
 * pass^k (τ-bench): the chance that k trials drawn from the n run all pass, C(c,k) / C(n,k) for c
 * passes out of n. pass^1 is the pass rate; pass^n is 1 only when every trial passed.
 */
export function passHatK(trials: number, passes: number, k: number): number {
  if (k < 1 || k > trials || passes < 0 || passes > trials)
    throw new RangeError(
      `pass^k: need 1 <= k <= trials and 0 <= passes <= trials (k=${k}, trials=${trials}, passes=${passes})`,
    );
  return choose(passes, k) / choose(trials, k);
}

/** pass^1 ... pass^n for one scenario. */
export function passHatKs(trials: number, passes: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (let k = 1; k <= trials; k++) out[String(k)] = passHatK(trials, passes, k);
  return out;
}

function choose(n: number, k: number): number {
  if (k > n) return 0;
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}
