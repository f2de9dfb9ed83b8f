# SPDX-License-Identifier: GPL-2.0
# For every "goto label;" line of a selftest source, print
# LINE<TAB>the condition that leads to it: the source lines from the
# nearest less-indented if/else/while/for/case above it down to the
# line before the goto, joined, blanks squeezed. A failing test's last
# goto (instrument.h prints its line) is so named by its condition, the
# text the exception lists use.
function width(s,    w, i, ch) {
	w = 0
	for (i = 1; i <= length(s); i++) {
		ch = substr(s, i, 1)
		if (ch == "\t")
			w = w - w % 8 + 8
		else if (ch == " ")
			w++
		else
			break
	}
	return w
}
{ line[NR] = $0 }
END {
	for (i = 1; i <= NR; i++) {
		if (line[i] !~ /^[ \t]*goto [a-z_0-9]+;[ \t]*$/)
			continue
		w = width(line[i])
		start = i
		for (j = i - 1; j > 0 && j >= i - 12; j--) {
			if (width(line[j]) < w &&
			    line[j] ~ /^[ \t]*(\} *)?(else|if|while|for|case|default)([ (:]|$)/) {
				start = j
				break
			}
		}
		text = ""
		for (j = start; j < i; j++)
			text = text " " line[j]
		gsub(/[ \t]+/, " ", text)
		sub(/^ /, "", text)
		sub(/ $/, "", text)
		if (text == "")
			text = "(unconditional)"
		print i "\t" text
	}
}
