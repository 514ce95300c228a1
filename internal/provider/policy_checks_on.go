//go:build !bench_nopolicycheck

package provider

// policyChecksEnabled: custody_policy checks its expressions at plan time.
// The benchmark builds the provider once more with the tag
// bench_nopolicycheck to measure what the checks add to a plan.
const policyChecksEnabled = true
