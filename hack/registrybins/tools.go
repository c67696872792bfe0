//go:build tools

// Package registrybins only names the main package to build; see go.mod.
package registrybins

import (
	_ "github.com/distribution/distribution/v3/cmd/registry"
)
