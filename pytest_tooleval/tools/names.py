"""The built-in catalogue's tool names: a public contract that corpora and users rely on.

Kept apart from the implementations so that loading and checking case files never
imports the tools themselves.
"""

from __future__ import annotations

BUILTIN_TOOLS_BY_GROUP: dict[str, tuple[str, ...]] = {
    "arithmetic-time": (
        "calculator",
        "current_datetime",
        "date_add",
        "date_diff",
        "convert_timezone",
        "convert_units",
    ),
    "documents": ("search_documents", "read_document"),
    "files-archives": (
        "list_directory",
        "read_file",
        "write_file",
        "find_files",
        "file_info",
        "move_file",
        "delete_file",
        "create_archive",
        "list_archive",
        "extract_archive",
    ),
    "code-git": (
        "git_status",
        "git_log",
        "git_diff",
        "git_show",
        "git_branches",
        "git_commit",
        "grep_code",
        "run_python",
    ),
    "web": ("web_search", "web_fetch"),
    "memory-calendar": (
        "memory_save",
        "memory_search",
        "calendar_list",
        "calendar_add",
        "calendar_delete",
        "reminder_add",
        "contacts_lookup",
    ),
    "messaging": ("send_message",),
}

BUILTIN_TOOL_NAMES: frozenset[str] = frozenset(
    name for names in BUILTIN_TOOLS_BY_GROUP.values() for name in names
)
