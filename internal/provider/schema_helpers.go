package provider

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Small schema helpers that the resources and data sources share, each
// written once here.

var (
	notBlankRE = regexp.MustCompile(`\S`)
	noSpacesRE = regexp.MustCompile(`^\S+$`)
)

// notBlank refuses text that is empty or only white space, at plan time
// rather than after the service refuses it (or could never match it).
func notBlank() validator.String {
	return stringvalidator.RegexMatches(notBlankRE, "must not be empty or only white space")
}

// noSpaces refuses an id that is empty or holds white space: the service's
// ids and addresses never do. what names the value the attribute wants, for
// the message, e.g. "a policy id".
func noSpaces(what string) validator.String {
	return stringvalidator.RegexMatches(noSpacesRE, "must be "+what+": not empty and without spaces")
}
