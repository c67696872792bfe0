//go:build tools

// Package temporalbins only names the main packages to build; see go.mod.
package temporalbins

import (
	_ "go.temporal.io/server/cmd/server"
	_ "go.temporal.io/server/cmd/tools/sql"
)
