/** The activity agent's one tool: a made-up weekend forecast, so the example needs no weather API. */

export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'The weekend weather forecast for a city.',
  input_schema: {
    type: 'object',
    properties: { city: { type: 'string', description: 'The city, like Lisbon' } },
    required: ['city'],
  },
} as const;

const FORECASTS: Record<string, { saturday: string; sunday: string; highC: number }> = {
  lisbon: { saturday: 'sunny', sunday: 'sunny', highC: 24 },
  oslo: { saturday: 'rain', sunday: 'cloudy', highC: 9 },
  denver: { saturday: 'snow', sunday: 'sunny', highC: 2 },
};

export function getWeather(input: unknown): {
  city: string;
  saturday?: string;
  sunday?: string;
  highC?: number;
  error?: string;
} {
  const city = typeof (input as { city?: unknown })?.city === 'string' ? (input as { city: string }).city : '';
  const forecast = FORECASTS[city.trim().toLowerCase()];
  return forecast ? { city, ...forecast } : { city, error: 'no forecast for this city' };
}
