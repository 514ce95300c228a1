//go:build !bench_nolockoutguard

package provider

// lockoutGuardEnabled: plans of custody_policy changes are checked for a
// lockout. The benchmark builds the provider once more with the tag
// bench_nolockoutguard to measure what the guard adds to a plan.
const lockoutGuardEnabled = true
