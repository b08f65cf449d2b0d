// Package prompts owns the prompt templates of relay's agents: the planner,
// the retriever sub-agent, the gap detector (scoping report) and the answer
// writer (relay ask), the message that asks a retriever at its soft step cap
// for its report, and the localization question of relay eval --agent.
// Templates are Markdown files embedded with embed.FS and
// rendered with text/template through [Render], so a prompt change is a diff
// to a .md file, not to Go code.
//
// prompts imports nothing else of relay; the agent package decides what data
// each template receives (see the comment at the top of each template).
package prompts
