"""
The Testcontainers example for Python of docs/container.md: the emulator's image in a pytest test. It needs
testcontainers (pip install testcontainers), which the project's tests do not download: the image test
(container/image.test.ts) compiles it, and checks that it names the image of this version and its port, that the
pattern it waits for matches the start line the image prints, and that the token it reads from that line is one the
API accepts.
"""
# #region testcontainers
import json
import urllib.request

from testcontainers.core.container import DockerContainer
from testcontainers.core.waiting_utils import wait_for_logs


def test_answers_as_the_company_of_its_start_line():
    emulator = DockerContainer("catalog-emulator:0.1.0").with_exposed_ports(4010).with_env("CATALOG_EMULATOR_CLOCK", "manual")
    with emulator:
        wait_for_logs(emulator, r'"kind":"ready"')  # its start line, the first line it prints
        url = f"http://{emulator.get_container_host_ip()}:{emulator.get_exposed_port(4010)}"
        stdout, _ = emulator.get_logs()
        start_line = json.loads(stdout.decode().splitlines()[0])
        token = start_line["companies"][0]["token"]  # a ready company with every permission

        request = urllib.request.Request(f"{url}/v1/empresa", headers={"authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request) as answer:
            assert answer.status == 200
# #endregion
