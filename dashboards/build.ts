/**
 * Writes the dashboards built as code into dashboards/json/ (what Grafana provisioning loads and
 * what is committed). Run `npm run dashboards` after changing a dashboard; a test fails while the
 * committed JSON differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildEvalonDashboard } from './evalon-dashboard.ts';

/** File name (under dashboards/json/) → dashboard JSON text. */
export function renderDashboards(): Record<string, string> {
  return { 'evalon-overview.json': `${JSON.stringify(buildEvalonDashboard(), null, 2)}\n` };
}

export const DASHBOARDS_DIR = fileURLToPath(new URL('./json/', import.meta.url));

if (import.meta.main) {
  for (const [name, text] of Object.entries(renderDashboards())) {
    writeFileSync(new URL(`./json/${name}`, import.meta.url), text);
    console.log(`wrote dashboards/json/${name}`);
  }
}
