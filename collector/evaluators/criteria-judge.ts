/**
 * `criteria-judge`: a model judges the interaction once per criterion. Properties: `criteria`
 * (exactly a scenario's `eval_criteria`: strings or mappings with `name`, `description`,
 * `criterion_type` binary | scored | rubric, `require_tool_call`, `weight`, `pass_threshold`),
 * `prompt_template` (replaces the judge's default instructions), `model` (default `EVALON_MODEL`).
 *
 * `require_tool_call` is decided from the interaction's recorded tool calls: a missing call fails
 * the criterion without a model call. The score is Σ score·weight / Σ weight; the evaluation passes
 * when every criterion with a weight above 0 passes (src/judge, `overallPassed`). A criterion whose
 * verdict stays unreadable after one retry, or whose model call fails, fails the whole evaluation
 * (a failed record, never a pass). All criteria are judged concurrently, in one evaluation (the
 * durable one-step-per-criterion form needs the DurableEvaluator runtime).
 */
import { effects } from '../../src/evaluation/effect.ts';
import { Evaluation } from '../../src/evaluation/evaluation.ts';
import { ConfigPropertyTypeError, EvaluatorFailedError } from '../../src/evaluation/errors.ts';
import { defineEvaluator, type EvaluatorDefinition } from '../../src/evaluation/evaluator.ts';
import type { EvaluatorConfig } from '../../src/evaluation/evaluator-config.ts';
import { judgeCriteria, type CriterionResult } from '../../src/judge/criteria-judge.ts';
import { criteriaSchema } from '../../src/judge/criterion-schema.ts';
import type { Criterion } from '../../src/judge/criterion.ts';
import { calledTools, judgeModelClient, judgeModelName, judgeTranscript, JUDGE_TIMEOUT_MS, optionalText, withUsage, type JudgeEvaluatorOptions } from './llm-judge-support.ts';

const ID = 'criteria-judge';

/** The judge's instructions when no `prompt_template` is set. */
export const CRITERIA_JUDGE_PREAMBLE = [
  "You are an expert evaluator judging one interaction of an AI agent: what it was asked, the tools it called and what it replied.",
  'You will receive the transcript of the interaction and ONE evaluation criterion. Judge the transcript against that criterion only.',
].join(' ');

export function createCriteriaJudgeEvaluator(options: JudgeEvaluatorOptions = {}): EvaluatorDefinition {
  return defineEvaluator({
    id: ID,
    description: 'a model judges the interaction against each criterion (binary, scored, rubric; weighted)',
    timeoutMs: JUDGE_TIMEOUT_MS,
    create: ({ ledger }) => ({
      async evaluate(context) {
        const config = context.config();
        const criteria = readCriteria(config);
        const promptTemplate = optionalText(config, ID, 'prompt_template') ?? CRITERIA_JUDGE_PREAMBLE;
        const interaction = await ledger.getInteraction(context.subject.interactionId);
        const transcript = judgeTranscript(interaction);
        if (transcript.length === 0) return effects.inconclusive('the interaction has no messages to judge');
        const client = judgeModelClient(options);
        const modelName = judgeModelName(config, client);
        const verdict = await judgeCriteria({
          criteria,
          transcript,
          model: client,
          promptTemplate,
          modelName,
          calledTools: calledTools(interaction),
          signal: context.signal,
        });
        const broken = verdict.criteria.filter((result) => result.outcome === 'unparseable' || result.outcome === 'judge_error');
        if (broken.length > 0) {
          throw new EvaluatorFailedError(`evaluator ${ID}: no verdict for ${broken.map((result) => `criterion "${result.name}": ${result.reasoning}`).join('; ')}`);
        }
        const passedCount = verdict.criteria.filter((result) => result.passed).length;
        const failedNames = verdict.criteria.filter((result) => !result.passed).map((result) => result.name);
        const evaluation = Evaluation.of(verdict.passed, verdict.criteria.map(describeResult).join('\n'))
          .withScore(verdict.overallScore)
          .withLabel(verdict.passed ? 'pass' : 'fail')
          .withAttribute('criteria_passed', passedCount)
          .withAttribute('criteria_total', verdict.criteria.length)
          .withAttribute('criteria_failed', failedNames.join(','));
        return effects.complete(withUsage(evaluation, verdict.usage, modelName));
      },
    }),
  });
}

/** `✓ name (score 0.8, threshold 0.5, weight 2): reasoning`, one line per criterion. */
function describeResult(result: CriterionResult): string {
  const facts = [
    ...(result.criterionType === 'binary' ? [] : [`score ${round(result.score)}`]),
    ...(result.passThreshold !== undefined ? [`threshold ${result.passThreshold}`] : []),
    ...(result.weight !== 1 ? [`weight ${result.weight}`] : []),
    ...(result.outcome === 'missing_tool_call' ? ['not judged: required tool call missing'] : []),
  ];
  const reasoning = result.reasoning.replace(/\s+/g, ' ').trim();
  return `${result.passed ? '✓' : '✗'} ${result.name}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}${reasoning ? `: ${reasoning}` : ''}`;
}

function readCriteria(config: EvaluatorConfig): Criterion[] {
  const parsed = criteriaSchema.safeParse(config.get('criteria'));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `criteria${issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('')}: ${issue.message}`);
    throw new ConfigPropertyTypeError('criteria', `evaluator ${ID}: config property "criteria" is not a valid criteria list: ${problems.join('; ')}`);
  }
  if (parsed.data.length === 0) throw new ConfigPropertyTypeError('criteria', `evaluator ${ID}: config property "criteria" lists no criteria`);
  return parsed.data;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export const criteriaJudgeEvaluator = createCriteriaJudgeEvaluator();
