-- beryl's own test script for Neovim's built-in LSP client (0.7 and
-- later), run headless by tests/integration/lsp_nvim.rs: it opens files of
-- a copy of the example inventory, attaches `beryl lsp`, asks for hovers
-- and definitions, writes an error into a group file and saves it, then
-- fixes it and saves again, types it again without saving and undoes it,
-- hovers as a preview host, and writes what it saw as JSON.
local beryl, root, out = os.getenv("BERYL"), os.getenv("ROOT"), os.getenv("OUT")
local seen = {}

local id = vim.lsp.start_client({
  name = "beryl",
  cmd = { beryl, "lsp" },
  cmd_cwd = root,
  root_dir = root,
})
local function open(rel)
  vim.cmd("edit " .. root .. "/" .. rel)
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, id)
  return buf
end
local function ready()
  local c = vim.lsp.get_client_by_id(id)
  return c ~= nil and c.server_capabilities ~= nil and c.initialized == true
end
local function ask(buf, method, line, character)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = character },
  }
  local r = vim.lsp.buf_request_sync(buf, method, params, 20000) or {}
  return (r[id] or {}).result
end
local function diagnostics(buf, want)
  vim.wait(20000, function() return #vim.diagnostic.get(buf) == want end, 50)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(list, { line = d.lnum, severity = d.severity, message = d.message, code = d.code })
  end
  return list
end

local host = open("inventory/example.org/web/host01.yml")
seen.ready = vim.wait(20000, ready, 50)
local h = ask(host, "textDocument/hover", 8, 4)
seen.hover_host = h and h.contents and h.contents.value or vim.NIL

local group = open("inventory/example.org/web/_group.yml")
local k = ask(group, "textDocument/hover", 29, 8)
seen.hover_knockout = k and k.contents and k.contents.value or vim.NIL
local s = ask(group, "textDocument/hover", 34, 14)
seen.hover_shell = s and s.contents and s.contents.value or vim.NIL
local d = ask(group, "textDocument/definition", 6, 6)
seen.definition_class = d and (d.uri or (d[1] and d[1].uri)) or vim.NIL
seen.diagnostics_open = diagnostics(group, 0)
-- Every place alice's shell is written.
local rp = {
  textDocument = { uri = vim.uri_from_bufnr(group) },
  position = { line = 34, character = 8 },
  context = { includeDeclaration = true },
}
local rr = vim.lsp.buf_request_sync(group, "textDocument/references", rp, 20000) or {}
local places = {}
for _, l in ipairs((rr[id] or {}).result or {}) do
  table.insert(places, vim.uri_to_fname(l.uri):sub(#root + 2) .. ":" .. (l.range.start.line + 1))
end
table.sort(places)
seen.references_shell = places

-- An error, saved: it appears; fixed and saved: it goes.
local freebsd = vim.fn.search("^freebsd:$")
vim.api.nvim_buf_set_lines(group, freebsd, freebsd, false, { "  raid: raid5" })
vim.cmd("write")
seen.error_line = freebsd
seen.diagnostics_error = diagnostics(group, 1)
vim.api.nvim_buf_set_lines(group, freebsd, freebsd + 1, false, {})
vim.cmd("write")
seen.diagnostics_fixed = diagnostics(group, 0)

-- The same error typed and not saved: it appears; undone: it goes. The
-- file on the disk is never written.
vim.api.nvim_buf_set_lines(group, freebsd, freebsd, false, { "  raid: raid5" })
seen.diagnostics_unsaved = diagnostics(group, 1)
seen.modified = vim.api.nvim_buf_get_option(group, "modified")
vim.api.nvim_buf_set_lines(group, freebsd, freebsd + 1, false, {})
seen.diagnostics_undone = diagnostics(group, 0)

-- alice's shell in the group as host01 and as host02 see it; a reference
-- in _default.yml as host01 sees it, and where `${site.owner}` is written.
local function preview(name)
  local r = vim.lsp.buf_request_sync(group, "workspace/executeCommand",
    { command = "beryl.preview", arguments = { name } }, 20000) or {}
  return (r[id] or {}).result
end
local function text(h) return h and h.contents and h.contents.value or vim.NIL end
seen.preview_host01 = preview("host01")
seen.shell_host01 = text(ask(group, "textDocument/hover", 34, 14))
seen.preview_host02 = preview("host02")
seen.shell_host02 = text(ask(group, "textDocument/hover", 34, 14))
preview("host01")
local default = open("inventory/_default.yml")
seen.hover_fqdn = text(ask(default, "textDocument/hover", 27, 14))
local owner = ask(host, "textDocument/definition", 52, 27)
seen.definition_owner = owner and owner[1] or vim.NIL

local f = io.open(out, "w")
f:write(vim.fn.json_encode(seen))
f:close()
vim.lsp.stop_client(id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(id) == nil end, 50)
vim.cmd("qa!")
