//go:build !bench_noaccessreview

package provider

// accessReviewEnabled: plans of custody_policy changes get the access
// review. The benchmark builds the provider once more with the tag
// bench_noaccessreview to measure what the review adds to a plan.
const accessReviewEnabled = true
