package policylang

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // CronSpan names IANA zones; the provider must not depend on the machine's zoneinfo
)

// The time field's constructors (§5.2): Timestamp('<rfc3339>') and
// CronSpan('<cron>', '<duration>', '<zone>'). Their arguments are string
// literals, checked when the policy is checked, so a bad one is an error at
// plan time and never reaches evaluation.

// parseTimestamp reads RFC 3339 with a zero UTC offset only: Z, z, +00:00
// or -00:00.
func parseTimestamp(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.Replace(s, "z", "Z", 1))
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time such as '2026-03-01T00:00:00Z'", s)
	}
	if _, off := t.Zone(); off != 0 {
		return time.Time{}, fmt.Errorf("%q has a non-zero UTC offset; Timestamp takes UTC times only (ending in Z)", s)
	}
	return t.UTC(), nil
}

// cronField is one of the five fields of a cron expression.
type cronField struct {
	name     string
	min, max int
}

var cronFields = []cronField{{"minute", 0, 59}, {"hour", 0, 23}, {"day of month", 1, 31}, {"month", 1, 12}, {"day of week", 0, 6}}

// cronSpec is a parsed cron expression: the allowed values of each field,
// and whether each day field was restricted (not *).
type cronSpec struct {
	allowed    [5][64]bool
	restricted [5]bool
}

// parseCron reads five fields of numbers, ranges a-b, lists a,b and *;
// steps, macros, names and a seconds field are not part of the language.
func parseCron(s string) (*cronSpec, error) {
	parts := strings.Fields(s)
	if len(parts) != 5 {
		return nil, fmt.Errorf("cron %q has %d fields; it needs exactly 5: minute hour day-of-month month day-of-week", s, len(parts))
	}
	spec := &cronSpec{}
	for i, part := range parts {
		f := cronFields[i]
		if part == "*" {
			for v := f.min; v <= f.max; v++ {
				spec.allowed[i][v] = true
			}
			continue
		}
		spec.restricted[i] = true
		for _, item := range strings.Split(part, ",") {
			lo, hi, isRange := strings.Cut(item, "-")
			if !isRange {
				hi = lo
			}
			a, errA := strconv.Atoi(lo)
			b, errB := strconv.Atoi(hi)
			if errA != nil || errB != nil || lo == "" || hi == "" || strings.ContainsAny(item, "+ ") {
				return nil, fmt.Errorf("cron %q: %s field %q: only numbers, ranges a-b, lists a,b and * are allowed (no steps, names or macros)", s, f.name, item)
			}
			if a < f.min || b > f.max || a > b {
				return nil, fmt.Errorf("cron %q: %s field %q is outside %d-%d", s, f.name, item, f.min, f.max)
			}
			for v := a; v <= b; v++ {
				spec.allowed[i][v] = true
			}
		}
	}
	return spec, nil
}

// matches tells whether the cron fires at the minute of t (in t's zone).
// When both day fields are restricted, either may match (cron's rule).
func (c *cronSpec) matches(t time.Time) bool {
	if !c.allowed[0][t.Minute()] || !c.allowed[1][t.Hour()] || !c.allowed[3][int(t.Month())] {
		return false
	}
	dom, dow := c.allowed[2][t.Day()], c.allowed[4][int(t.Weekday())]
	if c.restricted[2] && c.restricted[4] {
		return dom || dow
	}
	return dom && dow
}

var durationText = regexp.MustCompile(`^(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?$`)

const maxSpan = 7 * 24 * time.Hour

// parseSpanDuration reads whole d, h and m combined (8h, 90m, 1d12h), more
// than zero and at most 7 days.
func parseSpanDuration(s string) (time.Duration, error) {
	m := durationText.FindStringSubmatch(s)
	if m == nil || s == "" {
		return 0, fmt.Errorf("duration %q: write whole days, hours and minutes such as '8h', '90m' or '1d12h' (no seconds or fractions)", s)
	}
	var d time.Duration
	for i, unit := range []time.Duration{24 * time.Hour, time.Hour, time.Minute} {
		if m[i+1] == "" {
			continue
		}
		n, err := strconv.ParseInt(m[i+1], 10, 64)
		if err != nil || n > int64(maxSpan/time.Minute) {
			return 0, fmt.Errorf("duration %q is too long: at most 7 days", s)
		}
		d += time.Duration(n) * unit
	}
	if d <= 0 || d > maxSpan {
		return 0, fmt.Errorf("duration %q must be more than zero and at most 7 days", s)
	}
	return d, nil
}

// loadZone reads an IANA zone name.
func loadZone(s string) (*time.Location, error) {
	if s == "" || s == "Local" {
		return nil, fmt.Errorf("time zone %q: name an IANA zone such as 'America/New_York' or 'UTC'", s)
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, fmt.Errorf("time zone %q is not an IANA zone name such as 'America/New_York'", s)
	}
	return loc, nil
}

// cronSpan is a checked CronSpan: true while now is inside [fire, fire +
// duration) for some time the cron fires, in the zone.
type cronSpan struct {
	spec *cronSpec
	span time.Duration
	loc  *time.Location
}

func parseCronSpan(cron, dur, zone string) (*cronSpan, []error) {
	spec, errCron := parseCron(cron)
	d, errDur := parseSpanDuration(dur)
	loc, errZone := loadZone(zone)
	errs := []error{errCron, errDur, errZone}
	if errCron != nil || errDur != nil || errZone != nil {
		return nil, errs
	}
	return &cronSpan{spec: spec, span: d, loc: loc}, nil
}

// holds looks back from now, minute by minute, over one duration (at most
// 7 days, so at most 10,080 minutes) for a time the cron fires.
func (c *cronSpan) holds(now time.Time) bool {
	first := now.Truncate(time.Minute)
	for fire := first; now.Sub(fire) < c.span; fire = fire.Add(-time.Minute) {
		if c.spec.matches(fire.In(c.loc)) {
			return true
		}
	}
	return false
}

// CronWindow is a checked CronSpan as the access review's analysis reads
// it (internal/policyset/symbolic): the evaluator's own rule, so that the
// two never differ.
type CronWindow struct{ c *cronSpan }

// ParseCronWindow checks a CronSpan's three literal arguments; ok is false
// where the checker refuses them.
func ParseCronWindow(cron, dur, zone string) (_ *CronWindow, ok bool) {
	c, errs := parseCronSpan(cron, dur, zone)
	if errs != nil {
		return nil, false
	}
	return &CronWindow{c: c}, true
}

// Weekly tells whether the window repeats every week of local time: its
// day-of-month and month fields are *.
func (w *CronWindow) Weekly() bool { return !w.c.spec.restricted[2] && !w.c.spec.restricted[3] }

// Fires tells whether the cron fires at the minute of t, in its zone.
func (w *CronWindow) Fires(t time.Time) bool { return w.c.spec.matches(t.In(w.c.loc)) }

// Minutes is the window's length in whole minutes.
func (w *CronWindow) Minutes() int { return int(w.c.span / time.Minute) }

// Holds is CronSpan's value at now, as the evaluator computes it.
func (w *CronWindow) Holds(now time.Time) bool { return w.c.holds(now) }
