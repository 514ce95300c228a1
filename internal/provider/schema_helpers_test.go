package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestNotBlank(t *testing.T) {
	const msg = "must not be empty or only white space"
	runStringValidatorCases(t, notBlank(), map[string]validatorCase{
		"null":         {value: types.StringNull()},
		"unknown":      {value: types.StringUnknown()},
		"word":         {value: types.StringValue("x")},
		"inner space":  {value: types.StringValue("my name")},
		"padded":       {value: types.StringValue("  x  ")},
		"empty":        {value: types.StringValue(""), wantErr: msg},
		"spaces":       {value: types.StringValue("   "), wantErr: msg},
		"tab, newline": {value: types.StringValue("\t\n"), wantErr: msg},
	})
}

func TestNoSpaces(t *testing.T) {
	const msg = "must be a policy id: not empty and without spaces"
	runStringValidatorCases(t, noSpaces("a policy id"), map[string]validatorCase{
		"null":        {value: types.StringNull()},
		"unknown":     {value: types.StringUnknown()},
		"id":          {value: types.StringValue("5f0c-11aa")},
		"empty":       {value: types.StringValue(""), wantErr: msg},
		"inner space": {value: types.StringValue("a b"), wantErr: msg},
		"leading tab": {value: types.StringValue("\tab"), wantErr: msg},
		"trailing nl": {value: types.StringValue("ab\n"), wantErr: msg},
	})
}
