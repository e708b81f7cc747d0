// Package auth is idgen-server's one authentication, for the API and the console alike:
// the table of bearer tokens and what each grants (Grant), built once from the
// configuration (New); the Connect interceptor and the HTTP middleware that check them;
// the keys derived from a token's secret, which sign the console's sessions and the
// fleet's Status calls (FleetHeader); and the checks of those signatures.
//
// It holds no session, cookie or throttle: those are the console's. It serves no
// request and knows no tag beyond the names a token grants.
package auth
