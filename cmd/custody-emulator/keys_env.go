package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// newKeys picks the organization id and root keys of a new state.
func newKeys(c *config, stderr io.Writer) ([]rootKey, error) {
	if c.orgID == "" {
		c.orgID = newUUID()
		note(stderr, "new organization %s", c.orgID)
	}
	var keys []rootKey
	if c.apiPublicKey != "" {
		keys = append(keys, rootKey{pub: strings.ToLower(c.apiPublicKey)})
		note(stderr, "the first root user has the given API public key (-api-public-key or CUSTODY_API_PUBLIC_KEY); use its private key")
	}
	for len(keys) < c.rootQuorum {
		k, err := client.GenerateAPIKey()
		if err != nil {
			return nil, err
		}
		keys = append(keys, rootKey{pub: k.PublicKeyHex(), priv: k.PrivateKeyHex()})
	}
	return keys, nil
}

// restartKeys: an existing state file already holds its users and keys, so
// nothing is generated; a given key is checked against the state by New.
func restartKeys(c *config, stderr io.Writer) []rootKey {
	for _, name := range []string{"root-quorum", "organization-name"} {
		if c.fromUser[name] {
			note(stderr, "-%s is ignored: state file %s keeps its own", name, c.statePath)
		}
	}
	if c.apiPublicKey == "" {
		return nil
	}
	return []rootKey{{pub: strings.ToLower(c.apiPublicKey)}}
}

func (c *config) envFilePath() string {
	switch {
	case c.envFile != "":
		return c.envFile
	case c.statePath != "":
		return filepath.Join(filepath.Dir(c.statePath), envFileName)
	}
	return envFileName
}

func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// exportLines are shell lines to eval: the address, the organization and
// the first root key, then one line per further root user.
func exportLines(baseURL, orgID string, keys []rootKey) []string {
	first := []string{"CUSTODY_BASE_URL=" + shellWord(baseURL), "CUSTODY_ORGANIZATION_ID=" + shellWord(orgID)}
	lines := []string{}
	for i, k := range keys {
		prefix := "CUSTODY_API_"
		if i > 0 {
			prefix = fmt.Sprintf("CUSTODY_ROOT%d_API_", i+1)
		}
		words := []string{prefix + "PUBLIC_KEY=" + shellWord(k.pub)}
		if k.priv != "" {
			words = append(words, prefix+"PRIVATE_KEY="+shellWord(k.priv))
		}
		if i == 0 {
			words = append(first, words...)
		}
		lines = append(lines, "export "+strings.Join(words, " ")+"\n")
	}
	if len(keys) == 0 {
		lines = append(lines, "export "+strings.Join(first, " ")+"\n")
	}
	return lines
}

// previousKeys reads the root keys a first start wrote to the env file, so
// that a restart hands out the same credentials. An env file of another
// organization is left alone: overwriting it would lose its private keys.
func previousKeys(path, orgID string, given []rootKey, stderr io.Writer) ([]rootKey, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		note(stderr, "no env file %s: use the keys printed when the state file was created", path)
		return given, nil
	}
	if err != nil {
		return nil, err
	}
	vals := parseExports(string(b))
	if vals["CUSTODY_ORGANIZATION_ID"] != orgID {
		return nil, fmt.Errorf("env file %s is of organization %q, not %s; pass -env-file to write elsewhere", path, vals["CUSTODY_ORGANIZATION_ID"], orgID)
	}
	var keys []rootKey
	for i := 1; ; i++ {
		prefix := "CUSTODY_API_"
		if i > 1 {
			prefix = fmt.Sprintf("CUSTODY_ROOT%d_API_", i)
		}
		if vals[prefix+"PUBLIC_KEY"] == "" {
			return keys, nil
		}
		keys = append(keys, rootKey{pub: vals[prefix+"PUBLIC_KEY"], priv: vals[prefix+"PRIVATE_KEY"]})
	}
}

// writeEnvFile writes the lines with mode 0600, set before any secret is
// written, also when the file already existed with another mode.
func writeEnvFile(path string, lines []string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("env file: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		return fmt.Errorf("env file: %w", err)
	}
	_, err = io.WriteString(f, "# Written by custody-emulator. It holds API private keys: keep it private.\n"+strings.Join(lines, ""))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// shellWord quotes v for a POSIX shell unless it is made of safe characters
// only (ids, hex keys and loopback URLs usually are).
func shellWord(v string) string {
	const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:@%+="
	if v != "" && strings.Trim(v, safe) == "" {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

// parseExports reads back the NAME=word assignments of export lines as
// shellWord wrote them.
func parseExports(text string) map[string]string {
	vals := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, "export ")
		for ok && rest != "" {
			var name string
			if name, rest, ok = strings.Cut(rest, "="); !ok {
				break
			}
			var val strings.Builder
			for rest != "" && rest[0] != ' ' {
				switch end := strings.IndexByte(rest[1:], '\''); {
				case rest[0] == '\'' && end >= 0:
					val.WriteString(rest[1 : 1+end])
					rest = rest[2+end:]
				case rest[0] == '\\' && len(rest) > 1:
					val.WriteByte(rest[1])
					rest = rest[2:]
				default:
					val.WriteByte(rest[0])
					rest = rest[1:]
				}
			}
			vals[strings.TrimSpace(name)] = val.String()
			rest = strings.TrimLeft(rest, " ")
		}
	}
	return vals
}
