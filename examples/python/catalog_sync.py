#!/usr/bin/env python3
"""
An integration of the Catalog Integration Service in Python, with the standard library only, written to be run under
`catalog-emulator explore`: it syncs a small catalog (a catalog for the head office, two products, an edit guarded by
If-Match), configures its webhook destination, sends a test event, and checks that its receiver applied that event
exactly once. It exits 0 when the sync is done and its own check holds, 1 otherwise.

    npx catalog-emulator explore --runs 100 -- python3 examples/python/catalog_sync.py
    npx catalog-emulator explore --runs 100 -- python3 examples/python/catalog_sync.py --mistake no-retry-on-503

It reads CATALOG_EMULATOR_URL, CATALOG_EMULATOR_TOKEN and CATALOG_EMULATOR_COMPANY_ID, which `explore` gives each
run. --mistake plants one of the mistakes integrations make, to see `explore` find it and shrink it to its one fault:

    new-key-on-retry   a write whose answer was lost is retried under a new idempotency-key
    412-as-done        a 412 (another client saved first) is taken as if the edit were applied
    no-retry-on-503    a 503 is taken as a failure instead of retried after its Retry-After
    apply-twice        the receiver applies every delivery of an event, not only the first
"""
import argparse
import hashlib
import hmac
import http.client
import http.server
import json
import os
import sys
import threading
import urllib.error
import urllib.request
from datetime import datetime

MISTAKES = ["new-key-on-retry", "412-as-done", "no-retry-on-503", "apply-twice"]
# Requests to the emulator go straight to it, never through a proxy the environment names.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Transient(Exception):
    """No usable answer: the connection broke, or the answer was cut short or is not JSON. Retried."""


class Client:
    def __init__(self, url, token, company_id, mistake):
        self.url, self.company_id, self.mistake = url, company_id, mistake
        self.auth = {"authorization": f"Bearer {token}"}
        self.keys = 0

    def new_key(self):
        self.keys += 1
        return f"catalog-sync-{self.keys:04d}"

    def once(self, method, path, body, headers):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}{path}", data=data, method=method,
            headers={"content-type": "application/json", **self.auth, **headers})
        try:
            try:
                response = OPENER.open(request, timeout=30)
            except urllib.error.HTTPError as error:
                response = error
            with response:
                text = response.read()
                return response.status, response.headers, json.loads(text) if text else None
        except (urllib.error.URLError, http.client.HTTPException, ConnectionError, ValueError) as error:
            raise Transient(str(error)) from error

    def send(self, method, path, body=None, headers=None):
        """Sends until an answer that is not a transient failure; a write keeps its idempotency-key across retries."""
        key = None if method == "GET" else self.new_key()
        for attempt in range(1, 6):
            sent = {**(headers or {}), **({} if key is None else {"idempotency-key": key})}
            try:
                status, answer_headers, answer = self.once(method, path, body, sent)
                if status not in (429, 503):
                    return status, answer_headers, answer
                if status == 503 and self.mistake == "no-retry-on-503":
                    raise SystemExit(f"{method} {path} answered 503")
                wait = int(answer_headers.get("retry-after") or 1)
            except Transient:
                wait = 1
            if self.mistake == "new-key-on-retry" and key is not None:
                key = self.new_key()
            self.sleep(wait)
        raise SystemExit(f"{method} {path} still failing after 5 attempts")

    def sleep(self, seconds):
        """The wait of a retry, on the company's own clock: a Retry-After of 1 s costs no real time in a test."""
        self.control("POST", f"/companies/{self.company_id}/clock/advance", {"by": seconds * 1000})

    def control(self, method, path, body=None):
        status, _, answer = self.once(method, f"/_emulator{path}", body, {})
        if status >= 300:
            raise SystemExit(f"{method} /_emulator{path} answered {status}: {answer}")
        return answer

    def guarded(self, method, path, read, body, etag):
        """A write with If-Match: a 412 means another client saved first, so read again and send again."""
        for _ in range(5):
            status, headers, answer = self.send(method, path, body, {"if-match": etag})
            if status != 412 or self.mistake == "412-as-done":
                return status, headers, answer
            etag = self.send("GET", read)[1]["ETag"]
        raise SystemExit(f"{method} {path}: still 412 after 5 attempts")


def verified_event(secret, headers, body, now):
    """The event of a delivery whose signature holds (five minutes' tolerance), else None."""
    timestamp, event_id = headers.get("Service-Timestamp", ""), headers.get("Service-Event-Id", "")
    if not timestamp.isdigit() or abs(now - int(timestamp)) > 300:
        return None
    expected = "v1=" + hmac.new(secret.encode(), f"{timestamp}.{event_id}.".encode() + body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode(), headers.get("Service-Signature", "").encode()):
        return None
    event = json.loads(body)
    return event if event.get("id") == event_id else None


class Receiver(http.server.ThreadingHTTPServer):
    """The webhook receiver: applies each verified event once, recording its id (a table, in a real one)."""

    def __init__(self, client):
        super().__init__(("127.0.0.1", 0), Delivery)
        self.client, self.secret, self.applied, self.lock = client, "", [], threading.Lock()

    def now(self):
        clock = self.client.control("GET", f"/companies/{self.client.company_id}/clock")
        return int(datetime.fromisoformat(clock["now"].replace("Z", "+00:00")).timestamp())


class Delivery(http.server.BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        receiver = self.server
        event = verified_event(receiver.secret, self.headers, body, receiver.now())
        with receiver.lock:
            if event is not None and (receiver.client.mistake == "apply-twice" or event["id"] not in receiver.applied):
                receiver.applied.append(event["id"])
        self.send_response(400 if event is None else 200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def sync(client):
    status, _, establishments = client.send("GET", "/v1/estabelecimentos")
    if status != 200:
        raise SystemExit(f"establishments: {status}")
    head_office = establishments["itens"][0]["id"]
    status, _, catalog = client.send("POST", "/v1/catalogos", {"estabelecimento_id": head_office, "nome": "Loja"})
    if status != 201:
        raise SystemExit(f"catalog: {status} {catalog}")
    products = []
    for sku in ["CAFE-500", "CAFE-1K"]:
        status, headers, product = client.send(
            "POST", f"/v1/catalogos/{catalog['id']}/produtos", {"origem": "erp", "ncm": "21011110", "sku": sku})
        if status != 201:
            raise SystemExit(f"product {sku}: {status} {product}")
        products.append((product["id"], headers["ETag"]))
    product_id, etag = products[0]
    path = f"/v1/produtos/{product_id}"
    status, _, edited = client.guarded("PATCH", path, path, {"descricao": "Café torrado 500 g"}, etag)
    if status not in (200, 412):
        raise SystemExit(f"edit: {status} {edited}")

    receiver = Receiver(client)
    threading.Thread(target=receiver.serve_forever, args=(0.01,), daemon=True).start()
    try:
        # The destination must be a public https URL: the emulator routes it to this receiver.
        client.control("POST", "/network/routes",
                       {"from": "https://hooks.example.com", "to": f"http://127.0.0.1:{receiver.server_port}"})
        status, headers, destination = client.send(
            "PUT", "/v1/webhook", {"url": "https://hooks.example.com/catalog"}, {"if-none-match": "*"})
        if status not in (200, 201):
            raise SystemExit(f"webhook: {status} {destination}")
        receiver.secret = destination["segredo"]
        status, _, accepted = client.guarded("POST", "/v1/webhook/testes", "/v1/webhook", {}, headers["ETag"])
        if status != 202:
            raise SystemExit(f"test event: {status} {accepted}")
        client.sleep(3600)  # the delivery and its retries, if an attempt fails, are done within the hour
        if len(receiver.applied) != 1:
            raise SystemExit(f"the receiver applied {len(receiver.applied)} events, not 1: {receiver.applied}")
    finally:
        receiver.shutdown()


def main():
    parser = argparse.ArgumentParser(description="Syncs a small catalog; run it under catalog-emulator explore.")
    parser.add_argument("--mistake", choices=MISTAKES, help="plant one mistake, for explore to find")
    mistake = parser.parse_args().mistake
    environment = [os.environ.get(f"CATALOG_EMULATOR_{name}") for name in ("URL", "TOKEN", "COMPANY_ID")]
    if not all(environment):
        sys.exit("run it under catalog-emulator explore: CATALOG_EMULATOR_URL, _TOKEN and _COMPANY_ID are not all set")
    sync(Client(*environment, mistake))
    print("synced: 1 catalog, 2 products, 1 edit; the test event applied once")


if __name__ == "__main__":
    main()
