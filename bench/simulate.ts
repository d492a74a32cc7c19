/**
 * Simulation benchmark: the six shipped scenarios × N trials against the scripted model (in a
 * child process, so its work does not compete with the runner), zero thinking delay, at a given
 * concurrency. Prints wall time, the longest single run, the parallel efficiency and peak RSS.
 *
 *   node bench/simulate.ts [--trials 10] [--concurrency 8] [--latency 50] [--json]
 *
 * Each scenario is first run alone (after a warm-up) to time a single run without contention.
 * Parallel efficiency = ideal wall time / measured wall time, where the ideal is
 * max(longest single run, trials × Σ single-run times / concurrency): what perfectly overlapped
 * runs would take. --latency is the scripted model's reply time in milliseconds (a stand-in for a
 * real API); at 0 the runs are CPU-bound and efficiency is bounded by the cores of one process.
 */
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createAnthropicModelClient } from '../src/judge/anthropic-model-client.ts';
import { runBatch } from '../src/simulation/run/run-batch.ts';
import { loadScenario } from '../src/simulation/scenario/scenario-loader.ts';
import { createScriptedModel } from '../src/testing/scripted-model.ts';
import { SHIPPED_SCRIPTS, shippedScenarioPlayer } from '../test/helpers/shipped-scenario-player.ts';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
    latency: { type: 'string', default: '50' },
    json: { type: 'boolean', default: false },
    'serve-model': { type: 'boolean', default: false },
  },
});

if (values['serve-model']) {
  // Child mode: serve the scripted model and report its URL to the parent.
  const model = await createScriptedModel();
  model.respondWith(shippedScenarioPlayer(Number(values.latency)));
  process.send!({ baseURL: model.baseURL });
  process.on('disconnect', () => void model.close().then(() => process.exit(0)));
} else {
  const trials = Number(values.trials);
  const concurrency = Number(values.concurrency);
  const child = fork(new URL(import.meta.url).pathname, ['--serve-model', '--latency', values.latency], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const baseURL = await new Promise<string>((resolve, reject) => {
    child.once('message', (message: { baseURL: string }) => resolve(message.baseURL));
    child.once('exit', (code) => reject(new Error(`scripted model exited with ${code}`)));
  });
  try {
    const scenarios = await Promise.all(
      Object.keys(SHIPPED_SCRIPTS).map((name) => loadScenario(`scenarios/${name}.yaml`)),
    );
    const model = createAnthropicModelClient({ baseURL, apiKey: 'bench', model: 'scripted', maxRetries: 0 });
    await runBatch({ scenarios, trials: 1, concurrency: scenarios.length, model, thinkingDelays: false }); // warm-up
    const alone = await runBatch({ scenarios, trials: 1, concurrency: 1, model, thinkingDelays: false });
    const single = alone.scenarios.flatMap((scenario) => scenario.runs.map((run) => run.durationMs));
    const longest = Math.max(...single);
    const total = single.reduce((sum, ms) => sum + ms, 0) * trials;
    const ideal = Math.max(longest, total / concurrency);
    const batch = await runBatch({ scenarios, trials, concurrency, model, thinkingDelays: false });
    const runs = batch.scenarios.flatMap((scenario) => scenario.runs);
    const figures = {
      scenarios: scenarios.length,
      trials,
      runs: runs.length,
      concurrency,
      model_latency_ms: Number(values.latency),
      passed: runs.filter((run) => run.passed).length,
      errors: runs.filter((run) => run.error).map((run) => `${run.scenario}#${run.trial}: ${run.error!.message}`),
      wall_ms: batch.wallMs,
      single_run_ms: Object.fromEntries(scenarios.map((scenario, index) => [scenario.name, single[index]])),
      longest_single_run_ms: longest,
      sum_of_single_runs_ms: total,
      longest_run_under_load_ms: Math.max(...runs.map((run) => run.durationMs)),
      ideal_wall_ms: Math.round(ideal),
      parallel_efficiency: Number((ideal / batch.wallMs).toFixed(3)),
      peak_rss_mb: Number((process.resourceUsage().maxRSS / 1024).toFixed(1)),
      node: process.version,
    };
    if (values.json) console.log(JSON.stringify(figures, null, 2));
    else {
      console.log(
        `simulate bench: ${figures.scenarios} scenarios × ${trials} trials = ${figures.runs} runs, concurrency ` +
          `${concurrency}, model latency ${figures.model_latency_ms} ms`,
      );
      console.log(
        '  passed               ' +
          `${figures.passed}/${figures.runs}${figures.errors.length ? `  (errors: ${figures.errors.join('; ')})` : ''}`,
      );
      console.log(`  wall time            ${figures.wall_ms} ms`);
      console.log(
        `  longest single run   ${figures.longest_single_run_ms} ms  ` +
          `(alone; ${figures.longest_run_under_load_ms} ms under load)`,
      );
      console.log(`  sum of single runs   ${figures.sum_of_single_runs_ms} ms  (${trials} × each scenario alone)`);
      console.log(`  ideal wall time      ${figures.ideal_wall_ms} ms  (max(longest, sum / concurrency))`);
      console.log(`  parallel efficiency  ${(figures.parallel_efficiency * 100).toFixed(1)} %`);
      console.log(`  peak RSS             ${figures.peak_rss_mb} MB`);
    }
  } finally {
    child.disconnect();
  }
}
