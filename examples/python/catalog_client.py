#!/usr/bin/env python3
"""
A client of the Catalog Integration Service in Python, with the standard library only, run against catalog-emulator
as a local server. It starts the server and reads its start line; creates a catalog and a product; edits the
product with If-Match and recovers from the 412 another client's edit causes (a concurrentEdit fault); and runs a
webhook receiver that verifies every delivery as the specification says while the emulator's clock is moved to
see the retries, a tampered signature, a replayed timestamp and a duplicate. The emulator's seed and manual clock
make it print the same transcript on every run: examples/languages.test.ts compares it, and the Java client's.

    python3 examples/python/catalog_client.py     # starts `npx catalog-emulator`; CATALOG_EMULATOR overrides that
"""
import hashlib
import hmac
import http.server
import json
import os
import shlex
import subprocess
import threading
import urllib.error
import urllib.request
from datetime import datetime

# Requests to the emulator go straight to it, never through a proxy the environment names.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
JSON = {"content-type": "application/json"}


def call(method, url, body=None, headers=None):
    """One request (a JSON body when given); its status, headers and JSON answer (None when it has no body)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={**JSON, **(headers or {})})
    try:
        with OPENER.open(request) as response:
            return response.status, response.headers, json.loads(response.read() or "null")
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read() or "null")


# #region start
def start_emulator():
    """Starts the emulator on a free port; its process and start line (its URL, a ready company and its token)."""
    command = shlex.split(os.environ.get("CATALOG_EMULATOR", "npx catalog-emulator"))
    process = subprocess.Popen(
        [*command, "serve", "--json", "--port", "0", "--clock", "manual", "--log", "silent"],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()  # the first line, once it listens: {"kind": "ready", "url": ..., ...}
    if not line:
        raise SystemExit(f"catalog-emulator did not start (exit code {process.wait()})")
    return process, json.loads(line)
# #endregion


# #region verify
TOLERANCE_SECONDS = 5 * 60


class Rejected(Exception):
    """A delivery the receiver must not process: it answers 4xx, and the service retries it."""


def verify(secret, headers, body, now):
    """The event of a delivery whose signature holds, checked on the exact bytes received before any parsing."""
    event_id = headers.get("Service-Event-Id", "")
    timestamp = headers.get("Service-Timestamp", "")
    signature = headers.get("Service-Signature", "")
    if not (timestamp.isascii() and timestamp.isdigit()):
        raise Rejected("no Service-Timestamp")
    # Older or newer than five minutes by the receiver's clock: a replay, or a clock gone wrong.
    if abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        raise Rejected(f"timestamp {now - int(timestamp)} s old")
    # HMAC-SHA256 keyed with the whole secret (svc_whsec_ included) over "timestamp.event id.body".
    signed = f"{timestamp}.{event_id}.".encode() + body
    expected = "v1=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode(), signature.encode()):  # in constant time
        raise Rejected("signature does not match")
    event = json.loads(body)  # only now: the bytes are the service's
    if event.get("id") != event_id:
        raise Rejected("the body is another event's")
    return event
# #endregion


class Receiver(http.server.ThreadingHTTPServer):
    """The webhook receiver: verifies each delivery, applies each event once, and answers 500 while it is down."""

    def __init__(self, clock):
        super().__init__(("127.0.0.1", 0), Delivery)
        self.clock = clock  # the receiver's clock: the emulator's, which the client moves
        self.secret = None
        self.down_for = 0  # deliveries still to answer 500
        self.recorded = set()  # event ids applied: in a real receiver, a table written with the event's effect
        self.received = {}
        self.lock = threading.Lock()


class Delivery(http.server.BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self):
        receiver = self.server
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        with receiver.lock:
            event_id = self.headers.get("Service-Event-Id")
            receiver.received[event_id] = number = receiver.received.get(event_id, 0) + 1
            said = f"  receiver: delivery {number} of event {event_id}:"
            try:
                event = verify(receiver.secret, self.headers, body, receiver.clock())
            except Rejected as why:
                return self.answer(400, f"{said} rejected, {why}")
            if receiver.down_for > 0:
                receiver.down_for -= 1
                return self.answer(500, f"{said} verified, but the receiver is down")
            if event["id"] in receiver.recorded:
                return self.answer(200, f"{said} verified, already applied: not applied again")
            receiver.recorded.add(event["id"])
            return self.answer(200, f"{said} verified, applied")

    def answer(self, status, line):
        print(f"{line} -> {status}", flush=True)
        self.send_response(status)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass  # the transcript says what happened


def main():
    process, ready = start_emulator()
    try:
        run(ready)
    finally:
        process.terminate()  # SIGTERM: the emulator closes and exits 0
        process.wait()
    print(f"emulator stopped: exit code {process.returncode}")


def run(ready):
    url = ready["url"]
    company = ready["companies"][0]
    auth = {"authorization": f"Bearer {company['token']}"}
    print(f"emulator ready: seed {ready['seed']}, clock {ready['clock']['mode']} at {ready['clock']['now']}, company {company['cnpjRoot']}")

    def control(method, path, body=None):
        status, _, answer = call(method, f"{url}/_emulator{path}", body)
        if status >= 300:
            raise SystemExit(f"{method} /_emulator{path} answered {status}: {answer}")
        return answer

    status, _, catalog = call("POST", f"{url}/v1/catalogos", {"estabelecimento_id": company["headOffice"]["id"], "nome": "Loja"}, {**auth, "idempotency-key": "python-catalog-0001"})
    print(f"catalog: POST /v1/catalogos -> {status}, versao {catalog['versao']}")
    status, headers, product = call("POST", f"{url}/v1/catalogos/{catalog['id']}/produtos", {"origem": "erp", "ncm": "21069090"}, {**auth, "idempotency-key": "python-product-0001"})
    print(f"product: POST /v1/catalogos/{{id}}/produtos -> {status}, versao {product['versao']}")
    etag = headers["ETag"]

    def edit(sku, etag, key):
        return call("PATCH", f"{url}/v1/produtos/{product['id']}", {"sku": sku}, {**auth, "if-match": etag, "idempotency-key": key})

    status, headers, edited = edit("CAFE-500", etag, "python-product-edit-0001")
    print(f"edit: PATCH sku CAFE-500 with If-Match -> {status}, versao {edited['versao']}")

    # Another client saves the product between our read and our write: the service refuses ours with 412.
    control("POST", "/faults", {"target": "api", "match": {"method": "PATCH", "path": "/v1/produtos/*"}, "effect": {"concurrentEdit": True}})
    print("fault: another client edits the product just before the next PATCH")
    status, _, refused = edit("CAFE-1K", headers["ETag"], "python-product-edit-0002")
    print(f"edit: PATCH sku CAFE-1K with If-Match -> {status} {refused['erro']['codigo']}")
    # Recover: read it again, decide again on what is there now, and send that with the new ETag.
    status, headers, current = call("GET", f"{url}/v1/produtos/{product['id']}", headers=auth)
    print(f"re-read: GET /v1/produtos/{{id}} -> {status}, versao {current['versao']}, sku {current['sku']}")
    status, headers, edited = edit("CAFE-1K", headers["ETag"], "python-product-edit-0003")
    print(f"edit: PATCH sku CAFE-1K with the new If-Match -> {status}, versao {edited['versao']}")

    def clock_now():
        return int(datetime.fromisoformat(control("GET", "/clock")["now"].replace("Z", "+00:00")).timestamp())

    receiver = Receiver(clock_now)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        webhooks(url, auth, control, receiver)
    finally:
        receiver.shutdown()


def webhooks(url, auth, control, receiver):
    # The destination must be a public https URL: the emulator routes it to the receiver on this machine.
    control("POST", "/network/routes", {"from": "https://hooks.example.com", "to": f"http://127.0.0.1:{receiver.server_port}"})
    print("route: https://hooks.example.com -> the receiver")
    status, headers, destination = call("PUT", f"{url}/v1/webhook", {"url": "https://hooks.example.com/catalog"}, {**auth, "if-none-match": "*", "idempotency-key": "python-webhook-0001"})
    receiver.secret = destination["segredo"]  # shown by this answer only
    print(f"webhook: PUT /v1/webhook https://hooks.example.com/catalog -> {status}")
    webhook_etag = headers["ETag"]

    def advance(by):
        print(f"clock: advance {by}")
        control("POST", "/clock/advance", {"by": by})  # answers once the deliveries due by then are done

    def test_event(key):
        status, _, accepted = call("POST", f"{url}/v1/webhook/testes", {}, {**auth, "if-match": webhook_etag, "idempotency-key": key})
        print(f"test event: POST /v1/webhook/testes -> {status}, event {accepted['evento_id']}")
        return accepted["evento_id"]

    def attempts(event_id):
        _, _, event = call("GET", f"{url}/v1/webhook/eventos/{event_id}", headers=auth)
        _, _, listed = call("GET", f"{url}/v1/webhook/eventos/{event_id}/tentativas", headers=auth)
        tried = ", ".join(f"{a['tentativa']} {a['estado']} {a['status_http']}" for a in listed["itens"])
        print(f"event {event_id}: {event['estado']} (attempts: {tried})")

    # The receiver is down for the first delivery: the service retries 5 s later.
    receiver.down_for = 1
    first = test_event("python-test-event-0001")
    advance("0s")
    advance("5s")
    attempts(first)

    # What the verification stops: a signature that does not match, a replay, and a delivery sent twice.
    second = test_event("python-test-event-0002")
    for effect, wait in [({"tamper": "signature"}, "0s"), ({"tamper": "timestamp"}, "5s"), ({"duplicate": True}, "5m")]:
        control("POST", "/faults", {"target": "delivery", "effect": effect})
        print(f"fault: the next delivery {json.dumps(effect)}")
        advance(wait)
    attempts(second)


if __name__ == "__main__":
    main()
