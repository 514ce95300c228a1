package emulator

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// What a generated history submits, drawn from its seed: who, when, what,
// and what the others do if it waits for consensus (its fate). The draws
// depend on the seed and the window only, never on what the state decides,
// so the same seed always asks the same things.

// historyKind is what one planned activity does.
type historyKind int

const (
	kindPayout       historyKind = iota // payouts-bot pays a payee from a hot wallet (ETH or USDC)
	kindSweep                           // treasury-bot sweeps a hot wallet into the treasury
	kindTopUp                           // treasury-bot tops a hot wallet up from the treasury
	kindAttest                          // a bot signs a hex message (keccak256)
	kindTransfer                        // a person sends from the treasury (ETH or USDC)
	kindPermit                          // a person signs a Permit2 approval (EIP-712)
	kindDigest                          // a person signs a 32-byte digest
	kindNewKey                          // a person or a root user creates a deposit key
	kindRootTransfer                    // a root user moves treasury funds to cold storage
)

// historyPlan is one activity to submit, and its fate.
type historyPlan struct {
	at     time.Time
	actor  int // index of historyUserSpecs, or historyRoot
	kind   historyKind
	op     client.Operation
	params any
	fate   historyFate
	draw   historyDraw
}

// historyFate is what the other users do while the activity waits for
// consensus: approve one after another (voters, in that order, until it
// no longer waits), leave it pending, or reject it at vote rejectAt.
type historyFate struct {
	pending, reject bool
	rejectAt        int
	voters          []int           // historyPeople, shuffled
	delays          []time.Duration // before each vote
	escalate        bool            // the root users with keys vote after the first person
}

// historyDraw holds what was drawn for the parameters; nonces are given
// later, in time order.
type historyDraw struct {
	from, to int    // historyKeySpecs; to < 0 for an address
	toAddr   string // when to < 0
	token    *historyToken
	amount   *big.Int // wei, or the token's units
	tipGwei  int64    // tenths of a gwei
	baseGwei int64
	byID     bool   // signWith names the key's id rather than its address
	message  []byte // attest, digest
	spender  string // permit
	name     string // new key
	tagged   bool   // new key: in the hot tag
}

// historyToken is an ERC-20 token on chain 1.
type historyToken struct {
	symbol, address string
	decimals        int
}

var (
	tokenUSDC = &historyToken{"USDC", "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", 6}
	tokenUSDT = &historyToken{"USDT", "0xdAC17F958D2ee523a2206206994597C13D831ec7", 6}
	tokenWETH = &historyToken{"WETH", "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", 18}
)

// Known counterparties: the recurring payees, an exchange deposit
// address and the cold storage, derived from their names; Permit2 and the
// routers a permit names as spender are the real contracts.
var (
	historyPayees        = []string{historyAddress("acme-payroll"), historyAddress("globex-supplies"), historyAddress("umbrella-logistics"), historyAddress("hooli-market-maker")}
	historyExchange      = historyAddress("initech-exchange-deposit")
	historyColdStorage   = historyAddress("cold-storage")
	historySpenders      = []string{"0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD", "0x111111125421cA6dc452d289314280a0f8842A65"}
	historyPermit2       = "0x000000000022D473030F116dDEE9F6B43aC78BA3"
	historyMaxUint160    = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 160), big.NewInt(1))
	historyERC20Transfer = []byte{0xa9, 0x05, 0x9c, 0xbb} // transfer(address,uint256)
)

// historyAddress is a stable address for a counterparty's name.
func historyAddress(name string) string {
	return eip55(hex.EncodeToString(keccak256([]byte("custody-emulator history address " + name))[12:]))
}

// planHistory draws the activities of the window [start, end) from the
// seed, in time order, with their parameters built for the actors' keys.
func planHistory(opts HistoryOptions, start, end time.Time, actors HistoryActors) []historyPlan {
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x6a09e667f3bcc909))
	start, end = start.UTC(), end.UTC() // days and hours in UTC, wherever the clock is
	n := &historyNonces{tx: make([]uint64, len(historyKeySpecs)), permit: make([]uint64, len(historyKeySpecs))}
	for i := range n.tx {
		n.tx[i] = 100 + rng.Uint64N(900)
	}
	var plans []historyPlan
	for day := start.Truncate(24 * time.Hour); day.Before(end); day = day.Add(24 * time.Hour) {
		weekend := day.Weekday() == time.Saturday || day.Weekday() == time.Sunday
		share := 1.2 // five weekdays at 1.2 and two weekend days at 0.5 average 1
		if weekend {
			share = 0.5
		}
		n := int(math.Round(float64(opts.PerDay) * share * (0.8 + 0.4*rng.Float64())))
		for range n {
			p := drawPlan(rng, day, weekend)
			if !p.at.Before(start) && p.at.Before(end) {
				plans = append(plans, p)
			}
		}
	}
	slices.SortStableFunc(plans, func(a, b historyPlan) int { return a.at.Compare(b.at) })
	for i := range plans {
		buildParams(&plans[i], actors, n)
	}
	return plans
}

// drawPlan draws one activity of the day: mostly payouts by the bot, at
// any hour; the people's transfers and signatures in business hours; now
// and then a new key or a root user's move.
func drawPlan(rng *rand.Rand, day time.Time, weekend bool) historyPlan {
	p := historyPlan{}
	switch x := rng.Float64(); {
	case x < 0.50:
		p.actor, p.kind = historyPayoutsBot, kindPayout
	case x < 0.58:
		p.actor, p.kind = historyTreasuryBot, kindSweep
	case x < 0.62:
		p.actor, p.kind = historyTreasuryBot, kindTopUp
	case x < 0.68:
		p.actor, p.kind = historyPayoutsBot+rng.IntN(2), kindAttest
	case x < 0.975:
		p.actor = historyPeople[rng.IntN(len(historyPeople))]
		switch y := rng.Float64(); {
		case y < 0.55:
			p.kind = kindTransfer
		case y < 0.80:
			p.kind = kindPermit
		case y < 0.95:
			p.kind = kindDigest
		default:
			p.kind = kindNewKey
		}
		if weekend && rng.Float64() < 0.5 { // people mostly rest at weekends; the bot does not
			p.actor, p.kind = historyPayoutsBot, kindPayout
		}
	default:
		p.actor, p.kind = historyRoot, kindRootTransfer
		if rng.Float64() < 0.4 {
			p.kind = kindNewKey
		}
	}
	var hour time.Duration
	switch {
	case p.actor == historyPayoutsBot || p.actor == historyTreasuryBot:
		hour = uniformDuration(rng, 24*time.Hour)
	case rng.Float64() < 0.9:
		hour = 8*time.Hour + uniformDuration(rng, 11*time.Hour)
	default:
		hour = 19*time.Hour + uniformDuration(rng, 4*time.Hour)
	}
	p.at = day.Add(hour)
	p.draw = drawDetails(rng, p.kind, p.at)
	p.fate = drawFate(rng)
	return p
}

// drawDetails draws the amounts and counterparties of one activity.
func drawDetails(rng *rand.Rand, kind historyKind, at time.Time) historyDraw {
	d := historyDraw{to: -1, tipGwei: 5 + rng.Int64N(25), baseGwei: 6 + rng.Int64N(55), byID: rng.Float64() < 0.2}
	hot := historyHot1 + rng.IntN(2)
	switch kind {
	case kindPayout:
		d.from, d.toAddr = hot, historyPayees[rng.IntN(len(historyPayees))]
		switch x := rng.Float64(); {
		case x < 0.05: // a payee nobody has paid before
			d.toAddr = randomAddress(rng)
			d.amount = etherAmount(rng, 0.05, 3)
		case x < 0.15: // a large payout
			d.amount = etherAmount(rng, 2, 25)
		case x < 0.45:
			d.token, d.amount = tokenUSDC, tokenUnits(rng, tokenUSDC, 50, 25_000)
		default:
			d.amount = etherAmount(rng, 0.02, 1.5)
		}
	case kindSweep:
		d.from, d.to, d.amount = hot, historyTreasury, etherAmount(rng, 5, 60)
	case kindTopUp:
		d.from, d.to, d.amount = historyTreasury, hot, etherAmount(rng, 10, 80)
	case kindAttest:
		d.from = hot
		d.message = fmt.Appendf(nil, "payout-batch:%s:%016x", at.Format("20060102"), rng.Uint64())
	case kindTransfer:
		d.from = historyTreasury
		switch x := rng.Float64(); {
		case x < 0.6:
			d.toAddr = historyPayees[rng.IntN(len(historyPayees))]
		case x < 0.8:
			d.toAddr = historyExchange
		default:
			d.toAddr = historyColdStorage
		}
		if rng.Float64() < 0.25 {
			d.token, d.amount = tokenUSDC, tokenUnits(rng, tokenUSDC, 5_000, 2_000_000)
		} else {
			d.amount = etherAmount(rng, 1, 250)
		}
	case kindPermit:
		d.from = []int{historyHot1, historyHot2, historyTreasury}[rng.IntN(3)]
		d.token = []*historyToken{tokenUSDC, tokenUSDT, tokenWETH}[rng.IntN(3)]
		d.spender = historySpenders[rng.IntN(len(historySpenders))]
		if rng.Float64() < 0.2 {
			d.amount = historyMaxUint160 // an unlimited approval
		} else {
			d.amount = tokenUnits(rng, d.token, 100, 500_000)
		}
	case kindDigest:
		d.from = []int{hot, historyTreasury}[rng.IntN(2)]
		d.message = make([]byte, 32)
		for i := range d.message {
			d.message[i] = byte(rng.UintN(256))
		}
	case kindNewKey:
		d.name = fmt.Sprintf("deposit-%s-%04x", at.Format("20060102"), rng.UintN(1<<16))
		d.tagged = rng.Float64() < 0.5
	case kindRootTransfer:
		d.from, d.toAddr, d.amount = historyTreasury, historyColdStorage, etherAmount(rng, 50, 500)
	}
	return d
}

// drawFate draws what the others do if the activity waits for consensus.
func drawFate(rng *rand.Rand) historyFate {
	f := historyFate{voters: slices.Clone(historyPeople)}
	rng.Shuffle(len(f.voters), func(i, j int) { f.voters[i], f.voters[j] = f.voters[j], f.voters[i] })
	for range 4 { // minutes to hours between votes
		f.delays = append(f.delays, logUniformDuration(rng, 3*time.Minute, 8*time.Hour))
	}
	switch x := rng.Float64(); {
	case x < 0.18:
		f.pending = true
	case x < 0.33:
		f.reject, f.rejectAt = true, rng.IntN(2)
	}
	f.escalate = rng.Float64() < 0.1
	return f
}

// etherAmount is an amount of wei from lo to hi ether, log-uniform, in
// thousandths of an ether (rounder for larger amounts).
func etherAmount(rng *rand.Rand, lo, hi float64) *big.Int {
	finney := int64(logUniform(rng, lo*1000, hi*1000))
	if finney >= 10_000 {
		finney -= finney % 1000
	} else if finney >= 1000 {
		finney -= finney % 100
	}
	return new(big.Int).Mul(big.NewInt(max(finney, 1)), big.NewInt(1e15))
}

// tokenUnits is an amount from lo to hi whole tokens, log-uniform, in the
// token's units.
func tokenUnits(rng *rand.Rand, t *historyToken, lo, hi float64) *big.Int {
	cents := big.NewInt(int64(logUniform(rng, lo*100, hi*100)))
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.decimals-2)), nil)
	return cents.Mul(cents, scale)
}

func randomAddress(rng *rand.Rand) string {
	b := make([]byte, 20)
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	return eip55(hex.EncodeToString(b))
}

func logUniform(rng *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
}

func uniformDuration(rng *rand.Rand, d time.Duration) time.Duration {
	return time.Duration(rng.Int64N(int64(d)))
}

func logUniformDuration(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	return time.Duration(logUniform(rng, float64(lo), float64(hi)))
}
