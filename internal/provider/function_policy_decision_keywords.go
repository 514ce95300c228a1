package provider

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// How policy_decision reads the request's condition keywords beyond
// activity and private_key: eth = { tx = {...}, eip_712 = {...} },
// solana = { tx = {...} }, wallet, wallets, secret, ... (the attributes of
// policyset.KeywordAttributes). The function only turns Terraform's values
// into plain Go data; the engine conforms them to the catalogue, so the
// function, the emulator and the decision table hold a request to the same
// types and ranges.

// keywordAttributes are the request attributes that carry keywords,
// sorted; computed once, since every call reads the request.
var keywordAttributes = policyset.KeywordAttributes()

// readKeywordAttributes sets on req the keyword attributes of the request
// argument, whose attributes attrs read, in name order (so that the first
// error is always the same). A null attribute is absent, as a request
// without that keyword is; one not fully known yet leaves the request
// without it, since the argument, and so the result, is unknown anyway.
func readKeywordAttributes(attrs map[string]argValue, req *policyset.Request) *function.FuncError {
	for _, name := range keywordAttributes {
		v, ok := attrs[name]
		if !ok || v.absent() {
			continue
		}
		// Whole numbers become *big.Int, and a fraction is an error here;
		// strings stay strings, which the engine reads as integers where
		// the catalogue has one ("2000000000000000000").
		x, ferr := v.languageValue()
		if ferr != nil {
			return ferr
		}
		if !v.v.IsFullyKnown() {
			v.arg.unknown = true
			continue
		}
		if err := req.SetKeywordAttribute(name, x); err != nil {
			return v.conformError(err)
		}
	}
	return nil
}

// conformError is the engine's refusal of v as a function error that names
// the part of the argument it is about: a ConformError's path is relative
// to v (".tx.value" below request.eth).
func (v argValue) conformError(err error) *function.FuncError {
	var ce *policylang.ConformError
	if !errors.As(err, &ce) {
		return v.errorf("%v", err)
	}
	return function.NewArgumentFuncError(v.arg.position, v.path()+ce.Path+": "+ce.Message)
}
