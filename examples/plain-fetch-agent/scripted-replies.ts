/**
 * Replies of the scripted model that make the activity agent behave as a real model would: check
 * the forecast of the city the question names, then suggest an activity that fits it.
 */
import type { RecordedRequest, ScriptedReply } from '../../src/testing/scripted-model.ts';

type Block = { type: string; text?: string; content?: unknown };
type Message = { role: string; content: string | Block[] };

export function activityReply(request: RecordedRequest): ScriptedReply {
  const messages = (request.body.messages ?? []) as Message[];
  const last = messages.at(-1);
  const result = Array.isArray(last?.content) ? last.content.find((block) => block.type === 'tool_result') : undefined;
  if (!result) {
    const question = typeof last?.content === 'string' ? last.content : '';
    const city = /\bin ([A-Z][a-z]+)/.exec(question)?.[1] ?? 'Lisbon';
    return {
      text: `Let me check the weather in ${city}.`,
      toolUse: [{ name: 'get_weather', input: { city }, id: `toolu_weather_${messages.length}` }],
    };
  }
  const forecast = JSON.parse(String(result.content)) as {
    city: string;
    saturday?: string;
    highC?: number;
    error?: string;
  };
  if (forecast.error)
    return { text: `I have no forecast for ${forecast.city}; a museum is a safe bet whatever the weather.` };
  if (forecast.saturday === 'sunny')
    return {
      text: `Saturday looks sunny and ${forecast.highC}°C in ${forecast.city}: try the hiking trail by the lake.`,
    };
  return { text: `Saturday brings ${forecast.saturday} in ${forecast.city}: try the climbing gym, then a café.` };
}
