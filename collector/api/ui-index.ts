/**
 * `GET /ui/`: the index of the collector's pages, behind the same token as `/api/*`. It lists
 * what the API serves, so that a browser pointed at the collector finds its way.
 */
export const UI_INDEX_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Evalon collector</title></head>
<body>
<h1>Evalon collector</h1>
<p>The ledger of agent interactions and their evaluations, read-only:</p>
<ul>
<li><a href="../api/v1/interactions">/api/v1/interactions</a>: recorded interactions, newest first</li>
<li>/api/v1/interactions/{interactionId} and /api/v1/interactions/{interactionId}/evaluations</li>
<li><a href="../api/v1/stats">/api/v1/stats</a>: the collector's counters</li>
<li><a href="../healthz">/healthz</a>, <a href="../readyz">/readyz</a>: health and readiness</li>
</ul>
</body>
</html>
`;
