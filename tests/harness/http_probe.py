"""Asking the service's observability listener (METRICS_LISTEN) over loopback HTTP, as a
Prometheus server or an orchestrator's probe would: a GET's status and text, and a scrape
parsed into its samples."""

from __future__ import annotations

import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

# A sample by its name and its sorted labels.
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def http_get(url: str) -> tuple[int, str]:
    """The status and the body of a GET; an error status is an answer, not an exception."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def scrape(base: str) -> Samples:
    status, text = http_get(base + "/metrics")
    assert status == 200, text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """A sample's value; 0 when the scrape has no such sample."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)
