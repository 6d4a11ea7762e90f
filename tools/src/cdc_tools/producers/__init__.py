"""Real producers on real databases, for the conformance tests (issue: the replica equals the
source table): a throwaway database server and the producer capturing what it sends, one value
per line, as a Kafka Connect sink lands it."""
