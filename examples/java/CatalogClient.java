/*
 * A client of the Catalog Integration Service in Java, with the JDK only (java.net.http, javax.crypto and the JDK's
 * HTTP server), run against catalog-emulator as a local server: the same steps as examples/python/catalog_client.py,
 * and the same transcript, which examples/languages.test.ts compares. It starts the server and reads its start line;
 * creates a catalog and a product; edits the product with If-Match and recovers from the 412 another client's edit
 * causes (a concurrentEdit fault); and runs a webhook receiver that verifies every delivery as the specification
 * says while the emulator's clock is moved to see the retries, a tampered signature, a replayed timestamp and a
 * duplicate.
 *
 *     java examples/java/CatalogClient.java     (Java 17 or later; starts `npx catalog-emulator`, or CATALOG_EMULATOR)
 */
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class CatalogClient {
    // HTTP/1.1: the client would otherwise offer an upgrade to HTTP/2 on every plain-http request.
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    record Answer(int status, HttpResponse<String> response, Object json) {
        String header(String name) { return response.headers().firstValue(name).orElseThrow(); }
        Object get(String... path) { return Json.at(json, path); }
    }

    /** One request (a JSON body when given): its status, headers and JSON answer (null when it has no body). */
    static Answer call(String method, String url, String body, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
            .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
            .header("content-type", "application/json");
        for (int i = 0; i < headers.length; i += 2) request.header(headers[i], headers[i + 1]);
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response, response.body().isEmpty() ? null : Json.parse(response.body()));
    }

    /** Starts the emulator on a free port; its start line (its URL, a ready company and its token) is read next. */
    static Process startEmulator() throws IOException {
        String command = System.getenv().getOrDefault("CATALOG_EMULATOR", "npx catalog-emulator");
        List<String> args = new ArrayList<>(List.of(command.trim().split("\\s+")));
        args.addAll(List.of("serve", "--json", "--port", "0", "--clock", "manual", "--log", "silent"));
        return new ProcessBuilder(args).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    static Map<?, ?> startLine(Process emulator) throws IOException {
        // The first line, once it listens: {"kind": "ready", "url": ..., "companies": [{"token": ...}], ...}
        String line = new BufferedReader(new InputStreamReader(emulator.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (line == null) throw new IllegalStateException("catalog-emulator did not start");
        return (Map<?, ?>) Json.parse(line);
    }

    // #region verify
    static final long TOLERANCE_SECONDS = 5 * 60;

    /** A delivery the receiver must not process: it answers 4xx, and the service retries it. */
    static class Rejected extends Exception {
        Rejected(String why) { super(why); }
    }

    /** The event of a delivery whose signature holds, checked on the exact bytes received before any parsing. */
    static Map<?, ?> verify(String secret, com.sun.net.httpserver.Headers headers, byte[] body, long now) throws Exception {
        String eventId = headers.getOrDefault("Service-Event-Id", List.of("")).get(0);
        String timestamp = headers.getOrDefault("Service-Timestamp", List.of("")).get(0);
        String signature = headers.getOrDefault("Service-Signature", List.of("")).get(0);
        if (!timestamp.matches("[0-9]{1,18}")) throw new Rejected("no Service-Timestamp");
        // Older or newer than five minutes by the receiver's clock: a replay, or a clock gone wrong.
        long age = now - Long.parseLong(timestamp);
        if (Math.abs(age) > TOLERANCE_SECONDS) throw new Rejected("timestamp " + age + " s old");
        // HMAC-SHA256 keyed with the whole secret (svc_whsec_ included) over "timestamp.event id.body".
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        mac.update((timestamp + "." + eventId + ".").getBytes(StandardCharsets.UTF_8));
        String expected = "v1=" + java.util.HexFormat.of().formatHex(mac.doFinal(body));
        if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), signature.getBytes(StandardCharsets.UTF_8))) { // constant time
            throw new Rejected("signature does not match");
        }
        Map<?, ?> event = (Map<?, ?>) Json.parse(new String(body, StandardCharsets.UTF_8)); // only now: the bytes are the service's
        if (!eventId.equals(event.get("id"))) throw new Rejected("the body is another event's");
        return event;
    }
    // #endregion

    /** The webhook receiver: verifies each delivery, applies each event once, and answers 500 while it is down. */
    static class Receiver {
        final HttpServer server;
        final LongSupplier clock; // the receiver's clock: the emulator's, which the client moves
        volatile String secret;
        int downFor; // deliveries still to answer 500
        final Set<Object> recorded = new HashSet<>(); // event ids applied: in a real receiver, a table written with the event's effect
        final Map<String, Integer> received = new HashMap<>();

        Receiver(LongSupplier clock) throws IOException {
            this.clock = clock;
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", this::deliver);
            server.start();
        }

        synchronized void deliver(HttpExchange exchange) throws IOException {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String eventId = exchange.getRequestHeaders().getFirst("Service-Event-Id");
            int number = received.merge(eventId, 1, Integer::sum);
            String said = "  receiver: delivery " + number + " of event " + eventId + ":";
            Map<?, ?> event;
            try {
                event = verify(secret, exchange.getRequestHeaders(), body, clock.getAsLong());
            } catch (Rejected why) {
                answer(exchange, 400, said + " rejected, " + why.getMessage());
                return;
            } catch (Exception error) {
                throw new IOException(error);
            }
            if (downFor > 0) {
                downFor--;
                answer(exchange, 500, said + " verified, but the receiver is down");
            } else if (!recorded.add(event.get("id"))) {
                answer(exchange, 200, said + " verified, already applied: not applied again");
            } else {
                answer(exchange, 200, said + " verified, applied");
            }
        }

        static void answer(HttpExchange exchange, int status, String line) throws IOException {
            System.out.println(line + " -> " + status);
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        }
    }

    public static void main(String[] arguments) throws Exception {
        Process emulator = startEmulator();
        try {
            run(startLine(emulator));
        } finally {
            emulator.destroy(); // SIGTERM: the emulator closes and exits 0
            emulator.waitFor();
        }
        System.out.println("emulator stopped: exit code " + emulator.exitValue());
    }

    static void run(Map<?, ?> ready) throws Exception {
        String url = (String) ready.get("url");
        Map<?, ?> company = (Map<?, ?>) ((List<?>) ready.get("companies")).get(0);
        String auth = "Bearer " + company.get("token");
        System.out.println("emulator ready: seed " + ready.get("seed") + ", clock " + Json.at(ready, "clock", "mode") + " at " + Json.at(ready, "clock", "now") + ", company " + company.get("cnpjRoot"));

        Answer catalog = call("POST", url + "/v1/catalogos", "{\"estabelecimento_id\": \"" + Json.at(company, "headOffice", "id") + "\", \"nome\": \"Loja\"}", "authorization", auth, "idempotency-key", "java-catalog-0001");
        System.out.println("catalog: POST /v1/catalogos -> " + catalog.status() + ", versao " + catalog.get("versao"));
        Answer product = call("POST", url + "/v1/catalogos/" + catalog.get("id") + "/produtos", "{\"origem\": \"erp\", \"ncm\": \"21069090\"}", "authorization", auth, "idempotency-key", "java-product-0001");
        System.out.println("product: POST /v1/catalogos/{id}/produtos -> " + product.status() + ", versao " + product.get("versao"));
        String productUrl = url + "/v1/produtos/" + product.get("id");

        Answer edited = call("PATCH", productUrl, "{\"sku\": \"CAFE-500\"}", "authorization", auth, "if-match", product.header("etag"), "idempotency-key", "java-product-edit-0001");
        System.out.println("edit: PATCH sku CAFE-500 with If-Match -> " + edited.status() + ", versao " + edited.get("versao"));

        // Another client saves the product between our read and our write: the service refuses ours with 412.
        control(url, "POST", "/faults", "{\"target\": \"api\", \"match\": {\"method\": \"PATCH\", \"path\": \"/v1/produtos/*\"}, \"effect\": {\"concurrentEdit\": true}}");
        System.out.println("fault: another client edits the product just before the next PATCH");
        Answer refused = call("PATCH", productUrl, "{\"sku\": \"CAFE-1K\"}", "authorization", auth, "if-match", edited.header("etag"), "idempotency-key", "java-product-edit-0002");
        System.out.println("edit: PATCH sku CAFE-1K with If-Match -> " + refused.status() + " " + refused.get("erro", "codigo"));
        // Recover: read it again, decide again on what is there now, and send that with the new ETag.
        Answer current = call("GET", productUrl, null, "authorization", auth);
        System.out.println("re-read: GET /v1/produtos/{id} -> " + current.status() + ", versao " + current.get("versao") + ", sku " + current.get("sku"));
        edited = call("PATCH", productUrl, "{\"sku\": \"CAFE-1K\"}", "authorization", auth, "if-match", current.header("etag"), "idempotency-key", "java-product-edit-0003");
        System.out.println("edit: PATCH sku CAFE-1K with the new If-Match -> " + edited.status() + ", versao " + edited.get("versao"));

        Receiver receiver = new Receiver(() -> {
            try {
                return Instant.parse((String) control(url, "GET", "/clock", null).get("now")).getEpochSecond();
            } catch (Exception error) {
                throw new IllegalStateException(error);
            }
        });
        try {
            webhooks(url, auth, receiver);
        } finally {
            receiver.server.stop(0);
        }
    }

    static void webhooks(String url, String auth, Receiver receiver) throws Exception {
        // The destination must be a public https URL: the emulator routes it to the receiver on this machine.
        control(url, "POST", "/network/routes", "{\"from\": \"https://hooks.example.com\", \"to\": \"http://127.0.0.1:" + receiver.server.getAddress().getPort() + "\"}");
        System.out.println("route: https://hooks.example.com -> the receiver");
        Answer destination = call("PUT", url + "/v1/webhook", "{\"url\": \"https://hooks.example.com/catalog\"}", "authorization", auth, "if-none-match", "*", "idempotency-key", "java-webhook-0001");
        receiver.secret = (String) destination.get("segredo"); // shown by this answer only
        System.out.println("webhook: PUT /v1/webhook https://hooks.example.com/catalog -> " + destination.status());
        String webhookEtag = destination.header("etag");

        // The receiver is down for the first delivery: the service retries 5 s later.
        synchronized (receiver) { receiver.downFor = 1; }
        String first = testEvent(url, auth, webhookEtag, "java-test-event-0001");
        advance(url, "0s");
        advance(url, "5s");
        attempts(url, auth, first);

        // What the verification stops: a signature that does not match, a replay, and a delivery sent twice.
        String second = testEvent(url, auth, webhookEtag, "java-test-event-0002");
        String[][] faults = { { "{\"tamper\": \"signature\"}", "0s" }, { "{\"tamper\": \"timestamp\"}", "5s" }, { "{\"duplicate\": true}", "5m" } };
        for (String[] fault : faults) {
            control(url, "POST", "/faults", "{\"target\": \"delivery\", \"effect\": " + fault[0] + "}");
            System.out.println("fault: the next delivery " + fault[0]);
            advance(url, fault[1]);
        }
        attempts(url, auth, second);
    }

    static Answer control(String url, String method, String path, String body) throws Exception {
        Answer answer = call(method, url + "/_emulator" + path, body);
        if (answer.status() >= 300) throw new IllegalStateException(method + " /_emulator" + path + " answered " + answer.status() + ": " + answer.response().body());
        return answer;
    }

    static void advance(String url, String by) throws Exception {
        System.out.println("clock: advance " + by);
        control(url, "POST", "/clock/advance", "{\"by\": \"" + by + "\"}"); // answers once the deliveries due by then are done
    }

    static String testEvent(String url, String auth, String webhookEtag, String key) throws Exception {
        Answer accepted = call("POST", url + "/v1/webhook/testes", "{}", "authorization", auth, "if-match", webhookEtag, "idempotency-key", key);
        System.out.println("test event: POST /v1/webhook/testes -> " + accepted.status() + ", event " + accepted.get("evento_id"));
        return (String) accepted.get("evento_id");
    }

    static void attempts(String url, String auth, String eventId) throws Exception {
        Answer event = call("GET", url + "/v1/webhook/eventos/" + eventId, null, "authorization", auth);
        Answer listed = call("GET", url + "/v1/webhook/eventos/" + eventId + "/tentativas", null, "authorization", auth);
        String tried = ((List<?>) listed.get("itens")).stream()
            .map(attempt -> Json.at(attempt, "tentativa") + " " + Json.at(attempt, "estado") + " " + Json.at(attempt, "status_http"))
            .collect(Collectors.joining(", "));
        System.out.println("event " + eventId + ": " + event.get("estado") + " (attempts: " + tried + ")");
    }

    /** Just enough JSON for this client: objects, arrays, strings, integers and the literals (the JDK has no parser). */
    static final class Json {
        private final String text;
        private int at;

        private Json(String text) { this.text = text; }

        static Object parse(String text) {
            Json json = new Json(text);
            Object value = json.value();
            json.space();
            if (json.at != text.length()) throw json.error();
            return value;
        }

        static Object at(Object value, String... path) {
            for (String key : path) value = ((Map<?, ?>) value).get(key);
            return value;
        }

        private Object value() {
            space();
            char c = text.charAt(at);
            if (c == '{') {
                Map<String, Object> map = new LinkedHashMap<>();
                at++;
                if (peek('}')) return map;
                do {
                    space();
                    String key = string();
                    expect(':');
                    map.put(key, value());
                } while (next(',', '}'));
                return map;
            }
            if (c == '[') {
                List<Object> list = new ArrayList<>();
                at++;
                if (peek(']')) return list;
                do list.add(value()); while (next(',', ']'));
                return list;
            }
            if (c == '"') return string();
            for (String literal : new String[] { "true", "false", "null" }) {
                if (text.startsWith(literal, at)) {
                    at += literal.length();
                    return literal.equals("null") ? null : Boolean.valueOf(literal);
                }
            }
            int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
            String number = text.substring(start, at);
            if (number.isEmpty()) throw error();
            return number.matches("-?[0-9]+") ? (Object) Long.valueOf(number) : (Object) Double.valueOf(number);
        }

        private String string() {
            if (text.charAt(at++) != '"') throw error();
            StringBuilder out = new StringBuilder();
            for (char c; (c = text.charAt(at++)) != '"';) {
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char escaped = text.charAt(at++);
                switch (escaped) {
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'r' -> out.append('\r');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'u' -> {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> out.append(escaped);
                }
            }
            return out.toString();
        }

        private void space() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
        }

        private boolean peek(char close) {
            space();
            if (text.charAt(at) != close) return false;
            at++;
            return true;
        }

        private void expect(char c) {
            space();
            if (text.charAt(at++) != c) throw error();
        }

        /** After an item: true at the separator, false at the closing bracket. */
        private boolean next(char separator, char close) {
            space();
            char c = text.charAt(at++);
            if (c == separator) return true;
            if (c == close) return false;
            throw error();
        }

        private IllegalArgumentException error() {
            return new IllegalArgumentException("not JSON at " + at + ": " + text);
        }
    }
}
