/*
 * The Testcontainers example for Java of docs/container.md: the emulator's image as the GenericContainer of a JUnit 5
 * test. It needs testcontainers and junit-jupiter on the class path, which the project's tests do not download: the
 * image test (container/image.test.ts) checks that it names the image of this version and its port, that its wait
 * strategy's pattern matches the start line the image prints, and that the token it reads from that line is one the API
 * accepts.
 */
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

class EmulatorContainerTest {
    @Test
    void answersAsTheCompanyOfItsStartLine() throws Exception {
        // #region testcontainers
        try (GenericContainer<?> emulator = new GenericContainer<>(DockerImageName.parse("catalog-emulator:0.1.0"))
                .withExposedPorts(4010)
                .withEnv("CATALOG_EMULATOR_CLOCK", "manual")
                // Ready once its start line, the first line it prints, is out.
                .waitingFor(Wait.forLogMessage(".*\"kind\":\"ready\".*\\n", 1))) {
            emulator.start();
            String url = "http://" + emulator.getHost() + ":" + emulator.getMappedPort(4010);
            String startLine = emulator.getLogs(OutputFrame.OutputType.STDOUT).lines().findFirst().orElseThrow();
            Matcher token = Pattern.compile("\"token\":\"([^\"]+)\"").matcher(startLine);
            token.find(); // the first company's: a ready company with every permission

            HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/v1/empresa"))
                .header("authorization", "Bearer " + token.group(1))
                .build();
            assertEquals(200, HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).statusCode());
        }
        // #endregion
    }
}
