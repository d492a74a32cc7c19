/**
 * The in-process agent's tools as the evaluated participant declares them (`tools`): built-in
 * tools by name and recorded tools, in the order written. Without a declaration, every built-in.
 */
import type { Participant } from '../scenario/scenario.ts';
import { createRecordedTool } from './recorded-tool.ts';
import { builtInTools } from './tool-registry.ts';
import type { Tool } from './tool.ts';

/** Fresh tools for one run (recorded tools count their calls per run). */
export function declaredTools(participant: Participant): Tool[] {
  if (participant.tools === undefined) return builtInTools();
  const builtIn = builtInTools();
  return participant.tools.map((spec) => {
    if (spec.source === 'recorded') return createRecordedTool(spec);
    const tool = builtIn.find((candidate) => candidate.name === spec.name);
    // The scenario schema admits only known built-in names.
    if (!tool) throw new Error(`participants.${participant.name}.tools: unknown built-in tool "${spec.name}"`);
    return tool;
  });
}
