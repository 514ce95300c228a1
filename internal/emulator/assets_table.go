package emulator

// The CAIP-2 chains list_supported_assets accepts (spec 4.2.5). The two
// Solana references are the public CAIP-2 ids of mainnet-beta and devnet
// (the first 32 characters of each cluster's genesis hash).
const (
	solanaMainnet = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
	solanaDevnet  = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
)

// supportedChains lists the canonical caip2 values in the spec's order, so
// that a refusal lists them as the spec does.
var supportedChains = []string{
	"eip155:1", "eip155:11155111", "eip155:8453", "eip155:84532", "eip155:137", "eip155:80002",
	"eip155:56", "eip155:97", "eip155:10", "eip155:11155420", "eip155:143", "eip155:10143",
	"eip155:42161", "eip155:4217", "eip155:42431", "eip155:421614", solanaMainnet, solanaDevnet,
}

// chainAliases are the human-readable Solana names the spec accepts and
// normalizes to the canonical ids.
var chainAliases = map[string]string{
	"solana:mainnet": solanaMainnet,
	"solana:devnet":  solanaDevnet,
}

// assetRow is one asset of the built-in table.
type assetRow struct {
	caip19, symbol, name string
	decimals             int
	stable               bool
}

// placeholderLogo is the logoUrl of every asset. The emulator points at no
// real host: .invalid is a reserved top-level domain (RFC 2606), so the
// URL is well-formed and can never resolve.
func placeholderLogo(symbol string) string {
	return "https://assets.emulator.invalid/" + symbol + ".png"
}

// Native coins by their SLIP-44 coin type: 60 ether, 966 POL (Polygon),
// 714 BNB, 501 SOL, 268435779 MON (Monad, the coin type wallet registries
// use for it). Stablecoins are the issuers' own contracts; EVM addresses are
// lowercase, as in the CAIP-19 examples. Only values known for certain are
// here: a chain may have more assets on the real service.
var (
	ether = func(chain string) assetRow {
		return assetRow{caip19: chain + "/slip44:60", symbol: "ETH", name: "Ether", decimals: 18}
	}
	usdc = func(chain, address string) assetRow {
		return assetRow{caip19: chain + "/erc20:" + address, symbol: "USDC", name: "USD Coin", decimals: 6, stable: true}
	}
)

var assetTable = map[string][]assetRow{
	"eip155:1": {
		ether("eip155:1"),
		usdc("eip155:1", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
		{caip19: "eip155:1/erc20:0xdac17f958d2ee523a2206206994597c13d831ec7", symbol: "USDT", name: "Tether USD", decimals: 6, stable: true},
	},
	"eip155:11155111": {ether("eip155:11155111")},
	"eip155:8453": {
		ether("eip155:8453"),
		usdc("eip155:8453", "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"),
	},
	"eip155:84532": {ether("eip155:84532")},
	"eip155:137": {
		{caip19: "eip155:137/slip44:966", symbol: "POL", name: "POL", decimals: 18},
		usdc("eip155:137", "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359"),
	},
	"eip155:80002": {{caip19: "eip155:80002/slip44:966", symbol: "POL", name: "POL", decimals: 18}},
	"eip155:56":    {{caip19: "eip155:56/slip44:714", symbol: "BNB", name: "BNB", decimals: 18}},
	"eip155:97":    {{caip19: "eip155:97/slip44:714", symbol: "tBNB", name: "BNB", decimals: 18}},
	"eip155:10": {
		ether("eip155:10"),
		usdc("eip155:10", "0x0b2c639c533813f4aa9d7837caf62653d097ff85"),
	},
	"eip155:11155420": {ether("eip155:11155420")},
	"eip155:143":      {{caip19: "eip155:143/slip44:268435779", symbol: "MON", name: "MON", decimals: 18}},
	"eip155:10143":    {{caip19: "eip155:10143/slip44:268435779", symbol: "MON", name: "MON", decimals: 18}},
	"eip155:42161": {
		ether("eip155:42161"),
		usdc("eip155:42161", "0xaf88d065e77c8cc2239327c5edb3a432268e5831"),
	},
	"eip155:421614": {ether("eip155:421614")},
	// Tempo has no native coin: fees are paid in USD stablecoins, so the
	// table lists pathUSD, a TIP-20 token at the same address on mainnet
	// and on the Moderato testnet.
	"eip155:4217":  {{caip19: "eip155:4217/erc20:0x20c0000000000000000000000000000000000000", symbol: "pathUSD", name: "pathUSD", decimals: 6, stable: true}},
	"eip155:42431": {{caip19: "eip155:42431/erc20:0x20c0000000000000000000000000000000000000", symbol: "pathUSD", name: "pathUSD", decimals: 6, stable: true}},
	solanaMainnet: {
		{caip19: solanaMainnet + "/slip44:501", symbol: "SOL", name: "Solana", decimals: 9},
		{caip19: solanaMainnet + "/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", symbol: "USDC", name: "USD Coin", decimals: 6, stable: true},
	},
	solanaDevnet: {{caip19: solanaDevnet + "/slip44:501", symbol: "SOL", name: "Solana", decimals: 9}},
}
