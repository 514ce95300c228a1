package provider

// How the provider block and the CUSTODY_* variables become one client
// configuration. A literal in the block is checked at plan time by the
// schema (int64validator.Between, timetypes.GoDuration, positiveDuration);
// Configure checks the value it ends up with, from the block or the
// environment, once more through parseMaxRetries and parseApprovalTimeout,
// since nothing checks an environment variable before that.

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// maxRetriesLimit is the largest max_retries accepted, in the block or in
// CUSTODY_MAX_RETRIES.
const maxRetriesLimit = 20

// setting is one provider attribute with its environment fallback.
type setting struct {
	attr, env string
	value     types.String
	required  bool
}

// settings lists the block's attributes with their variables, as text:
// every variable is text, and max_retries is read from the block's number
// and from the variable by the same parseMaxRetries.
func (m providerModel) settings() []*setting {
	maxRetries := settingText(m.MaxRetries, func() string { return strconv.FormatInt(m.MaxRetries.ValueInt64(), 10) })
	perSecond := settingText(m.MaxRequestsPerSecond, func() string {
		return strconv.FormatFloat(m.MaxRequestsPerSecond.ValueFloat64(), 'g', -1, 64)
	})
	skipCheck := settingText(m.SkipCredentialsValidation, func() string { return strconv.FormatBool(m.SkipCredentialsValidation.ValueBool()) })
	skipLockout := settingText(m.SkipPolicyLockoutCheck, func() string { return strconv.FormatBool(m.SkipPolicyLockoutCheck.ValueBool()) })
	return []*setting{
		{attr: "base_url", env: "CUSTODY_BASE_URL", value: m.BaseURL, required: true},
		{attr: "organization_id", env: "CUSTODY_ORGANIZATION_ID", value: m.OrganizationID, required: true},
		{attr: "api_public_key", env: "CUSTODY_API_PUBLIC_KEY", value: m.APIPublicKey, required: true},
		{attr: "api_private_key", env: "CUSTODY_API_PRIVATE_KEY", value: m.APIPrivateKey, required: true},
		{attr: "max_retries", env: "CUSTODY_MAX_RETRIES", value: maxRetries},
		{attr: "approval_timeout", env: "CUSTODY_APPROVAL_TIMEOUT", value: m.ApprovalTimeout.StringValue},
		{attr: "max_requests_per_second", env: envMaxRequestsPerSecond, value: perSecond},
		{attr: "skip_credentials_validation", env: "CUSTODY_SKIP_CREDENTIALS_VALIDATION", value: skipCheck},
		{attr: "skip_policy_lockout_check", env: "CUSTODY_SKIP_POLICY_LOCKOUT_CHECK", value: skipLockout},
	}
}

// settingText is a non-string attribute as setting text: null or unknown
// as it is, else text().
func settingText(v attr.Value, text func() string) types.String {
	switch {
	case v.IsUnknown():
		return types.StringUnknown()
	case v.IsNull():
		return types.StringNull()
	}
	return types.StringValue(text())
}

// resolveSettings gives each setting its value from the block, else its
// variable, trimmed, and reports unknown and missing ones. keySetOnly is a
// configuration without any credential: only the base URL is then needed.
func resolveSettings(settings []*setting, diags *diag.Diagnostics) (values map[string]string, keySetOnly bool) {
	values = map[string]string{}
	keySetOnly = credentialsAbsent(settings)
	for _, s := range settings {
		if s.value.IsUnknown() {
			// The value depends on something not yet applied; the client
			// cannot be built from a guess.
			diags.AddAttributeError(path.Root(s.attr), "Unknown "+s.attr,
				fmt.Sprintf("The provider cannot be configured with an unknown %s. Set it to a value known at plan time, or use the %s environment variable.", s.attr, s.env))
			continue
		}
		v := s.value.ValueString()
		if v == "" {
			v = os.Getenv(s.env)
		}
		needed := s.required && (!keySetOnly || s.attr == "base_url")
		if v == "" && needed {
			diags.AddAttributeError(path.Root(s.attr), "Missing "+s.attr,
				fmt.Sprintf("Set %s in the provider block or the %s environment variable.", s.attr, s.env))
		}
		values[s.attr] = strings.TrimSpace(v)
	}
	return values, keySetOnly
}

// credentialsAbsent reports whether none of the credential settings
// (organization and API key) is set in the block or the environment.
func credentialsAbsent(settings []*setting) bool {
	for _, s := range settings {
		switch s.attr {
		case "organization_id", "api_public_key", "api_private_key":
			if !s.value.IsNull() || os.Getenv(s.env) != "" {
				return false
			}
		}
	}
	return true
}

// parseMaxRetries reads max_retries from the block or CUSTODY_MAX_RETRIES;
// "" leaves the client's default. It returns why v is refused, or "".
func parseMaxRetries(v string) (client.Retries, string) {
	if v == "" {
		return client.Retries{}, ""
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxRetriesLimit {
		return client.Retries{}, fmt.Sprintf("max_retries (or CUSTODY_MAX_RETRIES) must be a whole number from 0 to %d, got %q.", maxRetriesLimit, v)
	}
	return client.RetryUpTo(n), ""
}

// parseApprovalTimeout reads approval_timeout from the block or
// CUSTODY_APPROVAL_TIMEOUT; "" is DefaultApprovalTimeout. It returns why v
// is refused, or "".
func parseApprovalTimeout(v string) (time.Duration, string) {
	return parseDurationSetting("approval_timeout", "30m", v, DefaultApprovalTimeout)
}

// parseDurationSetting reads a positive duration setting, attr, from the
// block or its variable; "" is def. It returns why v is refused (example
// shows a good value), or "".
func parseDurationSetting(attr, example, v string, def time.Duration) (time.Duration, string) {
	if v == "" {
		return def, ""
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Sprintf("%s (or %s) must be a positive duration such as %q, got %q.", attr, settingEnv(attr), example, v)
	}
	return d, ""
}

// positiveDuration refuses a zero or negative duration of attr at plan
// time. Text that is no duration at all is left to timetypes.GoDuration,
// which reports it, so that a mistake is not reported twice.
func positiveDuration(attr string) validator.String {
	return stringCheck{`value must be a positive duration, such as "30m"`, "Invalid duration", func(s string) string {
		if d, err := time.ParseDuration(s); err == nil && d <= 0 {
			return fmt.Sprintf("%s must be a positive duration such as \"30m\", got %q.", attr, s)
		}
		return ""
	}}
}

// validBaseURL refuses at validation, on the attribute, a base_url literal
// that client.CheckBaseURL refuses (the one rule: https, http only to a
// loopback host, a scheme written out), so that terraform validate and
// plan point at the line. An empty literal is left to Configure, which
// falls back to CUSTODY_BASE_URL and checks that with the same rule.
func validBaseURL() validator.String {
	return stringCheck{"value must be an https URL such as https://api.example.com (http only for a loopback host)",
		"Invalid provider base_url", func(s string) string {
			if strings.TrimSpace(s) == "" {
				return ""
			}
			if err := client.CheckBaseURL(s); err != nil {
				return err.Error()
			}
			return ""
		}}
}

// configFieldAttrs names the provider attribute behind each client Config
// field that client.New can refuse.
var configFieldAttrs = map[client.ConfigField]string{
	client.FieldBaseURL:        "base_url",
	client.FieldOrganizationID: "organization_id",
	client.FieldAPIPublicKey:   "api_public_key",
	client.FieldAPIPrivateKey:  "api_private_key",
	client.FieldRetries:        "max_retries",
	client.FieldBudget:         "max_requests_per_second",
}

// configErrorAttr is the attribute a client configuration error is about,
// or "" for an error that names no field.
func configErrorAttr(err error) string {
	var cfgErr *client.ConfigError
	if errors.As(err, &cfgErr) {
		return configFieldAttrs[cfgErr.Field]
	}
	return ""
}

// parseBoolSetting reads a bool setting, attr, from the block or its
// variable; "" is false. It returns why v is refused, or "".
func parseBoolSetting(attr, v string) (bool, string) {
	if v == "" {
		return false, ""
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Sprintf("%s (or %s) must be true or false, got %q.", attr, settingEnv(attr), v)
	}
	return b, ""
}

// settingSource says where attr comes from, for a message about it alone.
func settingSource(attr string) string {
	if env := settingEnv(attr); env != "" {
		return fmt.Sprintf("(set as %s in the provider block or %s).", attr, env)
	}
	return ""
}

// settingEnv is the variable attr falls back to: an attribute of the
// block, or of its batching object.
func settingEnv(attr string) string {
	if env, ok := batchingEnvs[attr]; ok {
		return env
	}
	for _, s := range (providerModel{}).settings() {
		if s.attr == attr {
			return s.env
		}
	}
	return ""
}
