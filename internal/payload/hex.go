package payload

import (
	"encoding/hex"
	"strings"
)

// DecodeHex decodes a payload's hex, with or without 0x (or 0X).
func DecodeHex(v string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(v, "0x"); ok {
		v = rest
	} else if rest, ok := strings.CutPrefix(v, "0X"); ok {
		v = rest
	}
	return hex.DecodeString(v)
}
