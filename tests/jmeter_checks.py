"""What the JMeter tests share: the fields of JMeter's dashboard Statistics table."""

#: The per-label fields of JMeter's ``statistics.json`` (HTMLReportExpect.json's keys but
#: ``transaction``), as ``warmup load``'s dashboard rows carry them.
STATISTICS_FIELDS = (
    "sampleCount",
    "errorCount",
    "errorPct",
    "meanResTime",
    "medianResTime",
    "minResTime",
    "maxResTime",
    "pct1ResTime",
    "pct2ResTime",
    "pct3ResTime",
    "throughput",
    "receivedKBytesPerSec",
    "sentKBytesPerSec",
)
