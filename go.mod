module github.com/citune/citune

go 1.25.0

require (
	github.com/BurntSushi/toml v1.6.0
	periph.io/x/host/v3 v3.8.5
)
