//go:build unix && !linux

package embedded

const mapPopulate = 0
