package main

import (
	"math"
	"slices"
	"testing"
)

func TestThousands(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{999.4, "999"},
		{999.6, "1,000"},
		{25600, "25,600"},
		{4096000, "4,096,000"},
		{123456789, "123,456,789"},
		{-5, "-5"},
		{math.Inf(1), "+Inf"},
	} {
		if got := thousands(tc.v); got != tc.want {
			t.Errorf("thousands(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestParseCounts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		err  bool
	}{
		{"1,2,8,64", []int{1, 2, 8, 64}, false},
		{" 4 , 16", []int{4, 16}, false},
		{"0", nil, true},
		{"2,x", nil, true},
		{"", nil, true},
	} {
		got, err := parseCounts(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("parseCounts(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}
