"""A minimal remote agent for `evalon simulate`, standard library only.

Speaks POST /v1/step, protocol version "1". The evaluator owns the history, so this server keeps
no state. It answers every step with an echo of the last message not written by the agent, and a
trace saying how it answered.

    python3 examples/remote_agent_python/server.py [--port 8080] [--host 127.0.0.1] [--fail-first N]

--fail-first N answers the first N steps with 503 (to watch the evaluator retry).
"""
import argparse
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class State:
    failures_left = 0
    lock = threading.Lock()


def step(request):
    turns = [item for item in request["history"] if item.get("type") == "turn" and item.get("sender") != "agent"]
    content = turns[-1]["content"] if turns else "(no prior message)"
    return {
        "action": {
            "type": "send",
            "message": {
                "sender": "agent",
                "content": f"Echo from remote agent: {content}",
                "trace": {
                    "handler": "echo",
                    "history_items": len(request["history"]),
                    "events": len(request.get("events", [])),
                },
            },
            "tool_interactions": [],
        }
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _reply(self, status, body):
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        if self.path != "/v1/step":
            return self._reply(404, {"error": f"no route POST {self.path}"})
        with State.lock:
            if State.failures_left > 0:
                State.failures_left -= 1
                return self._reply(503, {"error": "temporarily unavailable (--fail-first)"})
        try:
            request = json.loads(raw)
        except ValueError:
            return self._reply(400, {"error": "body is not JSON"})
        if not isinstance(request, dict):
            return self._reply(400, {"error": "expected a JSON object"})
        if request.get("protocol_version") != "1":
            version = request.get("protocol_version")
            return self._reply(400, {"error": f"unsupported protocol_version {version!r} (this server speaks \"1\")"})
        if not isinstance(request.get("history"), list) or not isinstance(request.get("respond_in"), str):
            return self._reply(400, {"error": "expected history (a list) and respond_in (a string)"})
        self._reply(200, step(request))

    def do_GET(self):
        self._reply(404, {"error": f"no route GET {self.path}"})

    def log_message(self, format, *args):
        pass


def main():
    parser = argparse.ArgumentParser(description="Minimal Evalon remote agent (POST /v1/step)")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8080")))
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--fail-first", type=int, default=0)
    args = parser.parse_args()
    State.failures_left = args.fail_first
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    host, port = server.server_address[:2]
    print(f"remote agent listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
