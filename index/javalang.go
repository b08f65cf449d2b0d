package index

import "github.com/relayhq/relay/index/java"

// javaLang is Java (package index/java).
var javaLang = java.Lang

// JavaFormatVersion is the format of the Java records (language "java").
const JavaFormatVersion = java.FormatVersion
