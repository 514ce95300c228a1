package provider

import "testing"

// TestAccessReviewInTheBuild: the tests, like a release, run the provider
// with its access review (issue 31). Only the benchmark's build with the
// tag bench_noaccessreview turns it off, to measure what it costs.
func TestAccessReviewInTheBuild(t *testing.T) {
	if !accessReviewEnabled {
		t.Fatal("accessReviewEnabled is false: this build has the tag bench_noaccessreview, which only the benchmark's comparison build may have")
	}
}
