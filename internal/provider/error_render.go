package provider

// How a client error reads in a diagnostic: one paragraph per part, each
// said once, in the order a user needs them.

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// renderDiagnosis is the detail of a failed call, diagnosed as d, with the
// provider's note: what failed and why, what the service said, the note,
// the activity it concerns, what to do, and where the cause was met.
func renderDiagnosis(operation, object string, d client.Diagnosis, note string) string {
	lead := fmt.Sprintf("%s failed: %s.", what(operation, object), cause(d))
	if d.Identity != nil {
		// About the provider's configuration, whichever call met it.
		lead = "The provider's credentials check failed: " + cause(d) + "."
	}
	parts := []string{lead, serviceSaid(d), note, identifiers(d), fix(d), where(d, operation)}
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), "\n\n")
}

func what(operation, object string) string {
	if object == "" {
		return operation
	}
	return operation + " for " + object
}

// identitySummary is the summary of a failed credentials check: it names
// the provider's configuration, not the resource that met it.
func identitySummary(d client.Diagnosis) string {
	switch d.Class {
	case client.ClassCredentials:
		if allowlistRefusal(d) {
			return "Refused by the IP allowlist"
		}
		return "Invalid provider credentials"
	case client.ClassNotFound, client.ClassNotService:
		return "Invalid provider base_url"
	case client.ClassNetwork:
		if d.TLS {
			return "Provider cannot connect securely to the custody service"
		}
		return "Provider cannot reach the custody service"
	case client.ClassUnavailable:
		return "Custody service unavailable"
	}
	return "Provider credentials could not be checked"
}

// cause says why, in the user's terms, without the service's words.
func cause(d client.Diagnosis) string {
	if id := d.Identity; id != nil {
		switch d.Class {
		case client.ClassCredentials:
			if allowlistRefusal(d) {
				return fmt.Sprintf("the service at %s refuses requests from this machine's address with API key %s: the address is "+
					"not in the IP allowlist that applies to that key", id.BaseURL, id.PublicKey)
			}
			return fmt.Sprintf("the service at %s does not accept API key %s for organization %s", id.BaseURL, id.PublicKey, id.OrganizationID)
		case client.ClassNotFound:
			return fmt.Sprintf("no custody service answers at %s", id.BaseURL)
		case client.ClassNotService:
			return fmt.Sprintf("what answers at %s is not the custody service (HTTP %d)", id.BaseURL, d.HTTPStatus)
		case client.ClassNetwork:
			if d.TLS {
				return fmt.Sprintf("the TLS connection to %s failed", id.BaseURL)
			}
			return fmt.Sprintf("the custody service at %s cannot be reached%s", id.BaseURL, afterAttempts(d))
		case client.ClassUnavailable:
			return fmt.Sprintf("the custody service at %s stayed unavailable%s", id.BaseURL, afterAttempts(d))
		}
		return fmt.Sprintf("the provider's credentials could not be checked at %s", id.BaseURL)
	}
	switch d.Class {
	case client.ClassCredentials:
		if allowlistRefusal(d) {
			return "the organization's IP allowlist refuses this machine's address"
		}
		return "the service refused the provider's credentials, or they lack the permission"
	case client.ClassNotFound:
		return "the service has no such object"
	case client.ClassNotService:
		return fmt.Sprintf("what answers at base_url is not the custody service (HTTP %d)", d.HTTPStatus)
	case client.ClassInvalid:
		return "the service refused the request as invalid"
	case client.ClassUnavailable:
		if d.HTTPStatus == http.StatusTooManyRequests {
			return "the service kept rate limiting the request" + afterAttempts(d)
		}
		return "the service stayed unavailable" + afterAttempts(d)
	case client.ClassNetwork:
		if d.TLS {
			return "the TLS connection to the service failed"
		}
		return "the service could not be reached" + afterAttempts(d)
	case client.ClassActivityFailed:
		return fmt.Sprintf("activity %s failed", d.ActivityID)
	case client.ClassActivityRejected:
		return fmt.Sprintf("activity %s was rejected", d.ActivityID)
	case client.ClassAwaitingApproval:
		return fmt.Sprintf("activity %s still waits for approval", d.ActivityID)
	case client.ClassCanceled:
		return "it was interrupted or ran out of time (" + d.Message + ")"
	}
	return d.Message
}

func afterAttempts(d client.Diagnosis) string {
	if d.Attempts > 1 {
		return fmt.Sprintf(" after %d attempts", d.Attempts)
	}
	return ""
}

// allowlistRefusal is a refusal whose message blames an IP allowlist.
func allowlistRefusal(d client.Diagnosis) bool {
	return d.Class == client.ClassCredentials && strings.Contains(strings.ToLower(d.Message), "allowlist")
}

// serviceSaid quotes the service (or the transport) once.
func serviceSaid(d client.Diagnosis) string {
	switch {
	case d.Message == "" || d.Class == client.ClassOther || d.Class == client.ClassCanceled:
		return ""
	case d.Class == client.ClassNetwork:
		// Not "Error: ...": a line that starts so reads as a second error.
		return "The connection failed: " + d.Message
	case d.Class == client.ClassNotService:
		return "It answered: " + d.Message
	}
	return "The service said: " + d.Message
}

// identifiers names the activity concerned, to find it in the console.
func identifiers(d client.Diagnosis) string {
	if d.ActivityID == "" {
		return ""
	}
	s := fmt.Sprintf("Activity: %s (%s, %s)", d.ActivityID, d.ActivityType, d.ActivityStatus)
	if d.Fingerprint != "" {
		s += ", fingerprint " + d.Fingerprint
	}
	return s + "."
}

// where is the context: the request that met the cause, if not the call's
// own, its answer, and the steps the client was in.
func where(d client.Diagnosis, operation string) string {
	if d.Operation == "" && len(d.Steps) == 0 {
		return ""
	}
	var s []string
	if d.Operation != "" {
		req := d.Operation
		if d.Identity != nil {
			req = "the provider's credentials check (" + d.Operation + ")"
		}
		switch {
		case d.HTTPStatus != 0 && d.Code != 0:
			req += fmt.Sprintf(" answered HTTP %d (code %d)", d.HTTPStatus, d.Code)
		case d.HTTPStatus != 0:
			req += fmt.Sprintf(" answered HTTP %d", d.HTTPStatus)
		}
		if d.RequestID != "" {
			req += ", request id " + d.RequestID
		}
		if d.GaveUp != "" {
			req += "; the retries stopped: " + d.GaveUp
		}
		if d.Operation != operation || d.Identity != nil || d.HTTPStatus != 0 {
			s = append(s, req)
		}
	}
	for _, step := range d.Steps {
		s = append(s, "while "+step)
	}
	if len(s) == 0 {
		return ""
	}
	return "Where: " + strings.Join(s, ", ") + "."
}

// nothingTwice reassures about a change whose retries all failed; a
// credentials check changes nothing, so it needs no reassurance.
func nothingTwice(d client.Diagnosis) string {
	if d.Identity != nil || d.Attempts < 2 {
		return ""
	}
	return " Every retry resent the identical request, so nothing was done twice."
}

// fix is what to do about a class of failure, naming the settings
// and variables concerned.
func fix(d client.Diagnosis) string {
	switch d.Class {
	case client.ClassCredentials:
		if allowlistRefusal(d) {
			return ipAllowlistRecoveryHelp
		}
		return "Check api_public_key and api_private_key (CUSTODY_API_PUBLIC_KEY, CUSTODY_API_PRIVATE_KEY) and organization_id " +
			"(CUSTODY_ORGANIZATION_ID): the key must be registered to a user of that organization, and a policy must allow what it does."
	case client.ClassNotService:
		return "Check base_url (CUSTODY_BASE_URL): it must be the address of the service's API."
	case client.ClassNotFound:
		if d.Identity != nil {
			return "Check base_url (CUSTODY_BASE_URL): it must be the address of the service's API."
		}
		return "Check the id. An object deleted outside Terraform leaves the state at the next refresh."
	case client.ClassInvalid:
		return "Correct what the service's message names."
	case client.ClassUnavailable:
		return "Try again later, or allow more attempts with max_retries (CUSTODY_MAX_RETRIES)." + nothingTwice(d)
	case client.ClassNetwork:
		if d.TLS {
			return "Check base_url (CUSTODY_BASE_URL): its scheme (https:// to a port that speaks plain http fails this way) and the " +
				"service's certificate, which must be valid for its host name and trusted by this machine."
		}
		return "Check base_url (CUSTODY_BASE_URL) and this machine's network (DNS, proxy, firewall)." + nothingTwice(d)
	case client.ClassActivityFailed:
		return "The activity changed nothing: correct what its failure names and apply again."
	case client.ClassActivityRejected:
		return "Nothing was changed. Applying again submits a new activity, which needs approving again."
	case client.ClassAwaitingApproval:
		return "Approve or reject it (approve_activity / reject_activity with the fingerprint, or the service's console). The " +
			"next apply waits for this same activity and adopts its result instead of submitting a new one."
	}
	return ""
}

// importBlockNote is the advice for a create refused because the object
// exists: the import block that puts it under this resource (whose address
// the provider cannot know, so the example names it <name>).
func importBlockNote(resourceType, what, id string) string {
	return fmt.Sprintf("The existing %s is %s. To manage it with this resource instead of creating another, import it, with "+
		"this resource's address in to:\n\nimport {\n  to = %s.<name>\n  id = %q\n}", what, id, resourceType, id)
}
