"""The stream under load: 20 phones for 60 s at 20 announcements a second, the server in its own process committing
real actions. No announcement may be lost or repeated, and the server's memory must stay flat."""

from __future__ import annotations

from companion.bench.stats import percentile
from companion.web.loadgen import run_load


def test_twenty_phones_for_a_minute_lose_nothing_and_the_server_memory_stays_flat():
    result = run_load("companion", clients=20, seconds=60, rate=20)
    assert len(result.produced) == 1200 and result.rate > 18
    assert [p.error for p in result.phones if p.error] == []
    assert result.lost == 0 and result.duplicated == 0
    # In order, each once (a finished game's successor adds its opening note to what the phones hear).
    assert all(phone.ids == sorted(set(phone.ids)) and len(phone.ids) >= 1200 for phone in result.phones)
    warmed = result.rss_kb[len(result.rss_kb) // 5 :]
    assert len(warmed) >= 40 and warmed[-1] - warmed[0] < 8 * 1024, warmed  # KB: no growth with messages sent
    assert percentile(result.delays, 0.5) < 0.1, percentile(result.delays, 0.5)
