//go:build bench_noaccessreview

package provider

// accessReviewEnabled is off only in the benchmark's build with the tag
// bench_noaccessreview, which measures what the access review adds to a
// plan. No release is built with it.
const accessReviewEnabled = false
