/**
 * Agreement between two evaluator entries over their last `window` subjects judged by both: each
 * subject one pair (the latest pass/fail verdict of each entry), the pairs in the order they
 * formed (the later verdict's completion), the oldest dropped past the window. The counts behind
 * the statistics are kept as pairs come and go, so a new verdict costs O(1), never a rescan:
 *
 * - `rate`: the share of pairs where both entries gave the same verdict (raw agreement, p_o);
 * - `kappa`: Cohen's kappa, (p_o − p_e) / (1 − p_e), where p_e is the agreement expected by chance
 *   from each entry's own pass rate. 1 is perfect agreement, 0 no better than chance, below 0
 *   worse. When p_e is 1 (both entries gave every subject the same one class) kappa is 0/0:
 *   undefined, reported as null — the rate (then 1) says all there is;
 * - `scoreMae`: the mean absolute difference of the two scores, over the pairs where both scored
 *   (null when none did).
 *
 * With no pairs every statistic is null. Pure: no I/O, no clock.
 */

export interface AgreementPair {
  aPassed: boolean;
  bPassed: boolean;
  aScore?: number;
  bScore?: number;
}

export interface AgreementStatistics {
  /** Pairs in the window. */
  count: number;
  rate: number | null;
  kappa: number | null;
  scoreMae: number | null;
}

export interface AgreementWindow {
  /** Sets the pair of a subject (replacing its earlier one); it becomes the newest. */
  set(subject: string, pair: AgreementPair): void;
  statistics(): AgreementStatistics;
  size(): number;
}

/** Cohen's kappa of a 2×2 table (both pass, a only, b only, both fail); null when undefined or empty. */
export function cohensKappa(bothPass: number, aOnly: number, bOnly: number, bothFail: number): number | null {
  const n = bothPass + aOnly + bOnly + bothFail;
  if (n === 0) return null;
  const observed = (bothPass + bothFail) / n;
  const aPass = (bothPass + aOnly) / n;
  const bPass = (bothPass + bOnly) / n;
  const expected = aPass * bPass + (1 - aPass) * (1 - bPass);
  if (expected >= 1) return null;
  return (observed - expected) / (1 - expected);
}

export function createAgreementWindow(window: number): AgreementWindow {
  const pairs = new Map<string, AgreementPair>();
  const counts = { bothPass: 0, aOnly: 0, bOnly: 0, bothFail: 0, scored: 0, diffSum: 0 };

  function count(pair: AgreementPair, sign: 1 | -1): void {
    if (pair.aPassed && pair.bPassed) counts.bothPass += sign;
    else if (pair.aPassed) counts.aOnly += sign;
    else if (pair.bPassed) counts.bOnly += sign;
    else counts.bothFail += sign;
    if (pair.aScore !== undefined && pair.bScore !== undefined) {
      counts.scored += sign;
      counts.diffSum += sign * Math.abs(pair.aScore - pair.bScore);
    }
  }

  return {
    set(subject, pair) {
      const previous = pairs.get(subject);
      if (previous) {
        count(previous, -1);
        pairs.delete(subject);
      }
      pairs.set(subject, pair);
      count(pair, 1);
      while (pairs.size > window) {
        const [oldest, dropped] = pairs.entries().next().value as [string, AgreementPair];
        pairs.delete(oldest);
        count(dropped, -1);
      }
    },
    statistics() {
      const { bothPass, aOnly, bOnly, bothFail, scored, diffSum } = counts;
      const n = pairs.size;
      return {
        count: n,
        rate: n === 0 ? null : (bothPass + bothFail) / n,
        kappa: cohensKappa(bothPass, aOnly, bOnly, bothFail),
        // Rounded: the sum is kept by adding and taking away, which leaves float dust.
        scoreMae: scored === 0 ? null : Math.round((diffSum / scored) * 1e9) / 1e9,
      };
    },
    size: () => pairs.size,
  };
}
