-- End-to-end check of the Neovim client with the real server; run by
-- e2e.sh, which sets the environment:
--   DQLINT          the dqlint binary (server and `lint`)
--   E2E_PROJECT     an LHP project to open (a scratch copy: buffers are edited)
--   E2E_SHADOW      a second copy, where the edit is written to disk for `lint`
--   E2E_FILES       project-relative files to open, space-separated; the
--                   first one is edited
--   E2E_TIMEOUT_MS  how long to wait for each expected state
-- The expected diagnostics are never written down: they are what
-- `dqlint lint --format json` reports for the same text.
-- Written for Neovim 0.7 (no vim.fs, vim.cmd.edit, vim.lsp.get_clients).

local function fail(message)
  io.stderr:write("e2e FAIL: " .. message .. "\n")
  vim.cmd("cquit 1")
end

local ok, err = pcall(function()
  local this = debug.getinfo(1, "S").source:sub(2)
  local plugin = vim.fn.fnamemodify(this, ":p:h:h")
  vim.opt.runtimepath:prepend(plugin)
  vim.cmd("filetype on")

  local dqlint = assert(os.getenv("DQLINT"), "DQLINT is not set")
  local project = assert(os.getenv("E2E_PROJECT"), "E2E_PROJECT is not set")
  local shadow = assert(os.getenv("E2E_SHADOW"), "E2E_SHADOW is not set")
  local files = vim.split(assert(os.getenv("E2E_FILES"), "E2E_FILES is not set"), " ", { trimempty = true })
  local timeout = tonumber(os.getenv("E2E_TIMEOUT_MS") or "60000")

  --- `dqlint lint ROOT --format json`, as "CODE line:col" lists (0-based
  --- line, byte column, as Neovim holds diagnostics) per relative file.
  local function lint(root, lines_of)
    local out = vim.fn.system({ dqlint, "lint", root, "--format", "json" })
    if vim.v.shell_error ~= 0 and vim.v.shell_error ~= 1 then
      error("`dqlint lint " .. root .. "` failed (exit " .. vim.v.shell_error .. "): " .. out)
    end
    local report = vim.fn.json_decode(out)
    local by_file = {}
    for _, d in ipairs(report.diagnostics) do
      local line = d.range.start.line - 1
      local column = d.range.start.column - 1
      local text = lines_of(d.file, line)
      if text ~= nil then
        -- JSON columns count characters; Neovim's count bytes.
        column = vim.str_byteindex(text, math.min(column, vim.fn.strchars(text)))
      end
      by_file[d.file] = by_file[d.file] or {}
      table.insert(by_file[d.file], string.format("%s %d:%d", d.code, line, column))
    end
    for _, list in pairs(by_file) do
      table.sort(list)
    end
    return by_file
  end

  local function published(buf)
    local list = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.source == "dqlint" then
        table.insert(list, string.format("%s %d:%d", d.code, d.lnum, d.col))
      end
    end
    table.sort(list)
    return list
  end

  local buffers = {}
  local function line_in_buffer(rel, line)
    local buf = buffers[rel]
    if buf == nil then
      return nil
    end
    return vim.api.nvim_buf_get_lines(buf, line, line + 1, false)[1]
  end

  --- Waits until every open buffer shows exactly `expected`'s findings.
  local function expect(expected, stage)
    for _, rel in ipairs(files) do
      local want = table.concat(expected[rel] or {}, ", ")
      local arrived = vim.wait(timeout, function()
        return table.concat(published(buffers[rel]), ", ") == want
      end, 50)
      if not arrived then
        error(string.format(
          "%s: %s\n  expected (dqlint lint): [%s]\n  in the buffer:          [%s]\n  lsp log: %s",
          stage, rel, want, table.concat(published(buffers[rel]), ", "), vim.lsp.get_log_path()
        ))
      end
    end
  end

  require("dqlint").setup({ cmd = { dqlint, "server" }, legacy = os.getenv("E2E_LEGACY") == "1" })

  for _, rel in ipairs(files) do
    vim.cmd("edit " .. vim.fn.fnameescape(project .. "/" .. rel))
    buffers[rel] = vim.api.nvim_get_current_buf()
  end
  local expected = lint(project, line_in_buffer)
  for _, rel in ipairs(files) do
    if expected[rel] == nil then
      error("dqlint lint finds nothing in " .. rel .. ": the test would prove nothing; open files with findings")
    end
  end
  expect(expected, "after opening")
  local attached = 0
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buffers[files[1]] })
    or vim.lsp.buf_get_clients(buffers[files[1]])
  for _ in pairs(clients) do
    attached = attached + 1
  end
  if attached ~= 1 then
    error("expected one language client on " .. files[1] .. ", got " .. attached)
  end

  -- Edit without saving: delete the line of the first file's first finding.
  local edited = files[1]
  local first_line = tonumber(expected[edited][1]:match(" (%d+):"))
  vim.api.nvim_buf_set_lines(buffers[edited], first_line, first_line + 1, false, {})
  vim.fn.writefile(vim.api.nvim_buf_get_lines(buffers[edited], 0, -1, false), shadow .. "/" .. edited)
  local after = lint(shadow, line_in_buffer)
  if table.concat(after[edited] or {}, ",") == table.concat(expected[edited], ",") then
    error("deleting line " .. first_line .. " of " .. edited .. " changes no finding: the edit proves nothing")
  end
  expect(after, "after deleting line " .. (first_line + 1) .. " of " .. edited)

  -- `K` on a finding: a floating window with its rule's documentation
  -- (on 0.7-0.9 the plugin maps it; 0.10+ does by itself).
  local probe = files[#files]
  local code, line, col = (expected[probe][1]):match("^(%S+) (%d+):(%d+)$")
  local heading = vim.split(vim.fn.system({ dqlint, "rule", code }), "\n")[1]
  local rule_name = heading:match("%((.-)%)")
  if rule_name == nil then
    error("`dqlint rule " .. code .. "` printed no name: " .. heading)
  end
  local function floating_text()
    local texts = {}
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= "" then
        local buf = vim.api.nvim_win_get_buf(win)
        table.insert(texts, table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"))
      end
    end
    return table.concat(texts, "\n")
  end
  vim.cmd("buffer " .. buffers[probe])
  vim.api.nvim_win_set_cursor(0, { tonumber(line) + 1, tonumber(col) })
  vim.cmd("normal K")
  local shown = vim.wait(timeout, function()
    local text = floating_text()
    return text:find(rule_name, 1, true) ~= nil and text:find("What it does", 1, true) ~= nil
  end, 50)
  if not shown then
    error("K on " .. code .. " in " .. probe .. " showed no hover with `" .. rule_name .. "`; floating windows: [" .. floating_text() .. "]")
  end
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      vim.api.nvim_win_close(win, true)
    end
  end

  -- 'omnifunc' completes from the server: token names after `${`.
  local omni = vim.api.nvim_buf_get_option(buffers[probe], "omnifunc")
  if omni ~= "v:lua.vim.lsp.omnifunc" then
    error("'omnifunc' of " .. probe .. " is `" .. omni .. "`, not the LSP's")
  end
  local last = vim.api.nvim_buf_line_count(buffers[probe])
  vim.api.nvim_buf_set_lines(buffers[probe], last, last, false, { "# ${cat" })
  vim.api.nvim_win_set_cursor(0, { last + 1, #"# ${cat" })
  -- In Insert mode, as a user types it: `A` then CTRL-X CTRL-O. A timer
  -- reads the popup menu once the server's answer fills it, then leaves
  -- Insert mode ("x!" keeps Insert mode until that <Esc> comes).
  local offered
  local deadline = vim.loop.now() + timeout
  local timer = vim.loop.new_timer()
  timer:start(100, 50, vim.schedule_wrap(function()
    local info = vim.fn.complete_info({ "items" })
    if #info.items > 0 or vim.loop.now() > deadline then
      offered = info.items
      timer:stop()
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<C-e><Esc>", true, false, true), "n", false)
    end
  end))
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("A<C-x><C-o>", true, false, true), "x!", false)
  vim.wait(timeout, function()
    return offered ~= nil
  end, 50)
  local start = "insert mode"
  local words = {}
  for _, entry in ipairs(offered or {}) do
    table.insert(words, type(entry) == "table" and (entry.word or entry.abbr) or tostring(entry))
  end
  local found = false
  for _, word in ipairs(words) do
    if word:find("^catalog") then
      found = true
    end
  end
  if not found then
    error("omnifunc after `${cat` (start " .. tostring(start) .. ") offered [" .. table.concat(words, ", ") .. "], no `catalog`")
  end
  vim.api.nvim_buf_set_lines(buffers[probe], last, last + 1, false, {})

  -- A code action: a safe quick fix of one of the file's findings, picked
  -- through vim.ui.select as a user would, changes the buffer.
  local titles = {}
  local applied
  local real_select = vim.ui.select
  for _, entry in ipairs(expected[probe]) do
    local fcode, fline, fcol = entry:match("^(%S+) (%d+):(%d+)$")
    local before = table.concat(vim.api.nvim_buf_get_lines(buffers[probe], 0, -1, false), "\n")
    local answered = false
    local chosen = false
    vim.ui.select = function(items, opts, on_choice)
      answered = true
      for i, item in ipairs(items) do
        local title = opts.format_item and opts.format_item(item) or tostring(item)
        table.insert(titles, title)
        if title:sub(1, #fcode + 1) == fcode .. ":" and not title:find("changes behaviour", 1, true) then
          chosen = true
          on_choice(item, i)
          return
        end
      end
      on_choice(nil, nil)
    end
    vim.api.nvim_win_set_cursor(0, { tonumber(fline) + 1, tonumber(fcol) })
    vim.lsp.buf.code_action()
    vim.wait(timeout, function()
      return answered
    end, 50)
    if chosen then
      if not vim.wait(timeout, function()
        return table.concat(vim.api.nvim_buf_get_lines(buffers[probe], 0, -1, false), "\n") ~= before
      end, 50) then
        error("the quick fix of " .. fcode .. " was chosen but " .. probe .. " did not change")
      end
      applied = fcode
      break
    end
  end
  vim.ui.select = real_select
  if applied == nil then
    error("no safe quick fix offered in " .. probe .. "; offered: [" .. table.concat(titles, " | ") .. "]")
  end

  -- Outside any LHP project: a pipeline source and a DQX checks file find
  -- their repository as root, other Python and YAML none.
  local repo = vim.fn.tempname()
  vim.fn.mkdir(repo .. "/.git", "p")
  vim.fn.mkdir(repo .. "/src", "p")
  local samples = {
    ["src/pipeline.py"] = { "from pyspark import pipelines as dp", "", "@dp.table", "def t():", "    return 1" },
    ["src/legacy.py"] = { "import dlt" },
    ["src/tool.py"] = { "import os", "# import dlt" },
    ["checks.yml"] = { "- criticality: error", "  check:", "    function: is_not_null", "    arguments:", "      column: id" },
    ["ci.yml"] = { "jobs:", "  build: {}" },
  }
  local roots = {}
  for rel, lines in pairs(samples) do
    vim.fn.writefile(lines, repo .. "/" .. rel)
    vim.cmd("edit " .. vim.fn.fnameescape(repo .. "/" .. rel))
    roots[rel] = require("dqlint").root_of(vim.api.nvim_get_current_buf()) or "none"
  end
  local want = { ["src/pipeline.py"] = repo, ["src/legacy.py"] = repo, ["checks.yml"] = repo, ["src/tool.py"] = "none", ["ci.yml"] = "none" }
  for rel, root in pairs(want) do
    if roots[rel] ~= root then
      error("root of " .. rel .. ": " .. roots[rel] .. ", expected " .. root)
    end
  end

  local counts = {}
  for _, rel in ipairs(files) do
    table.insert(counts, rel .. " " .. #(after[rel] or {}))
  end
  local api = vim.lsp.start == nil and "vim.lsp.start_client"
    or ((vim.lsp.config ~= nil and os.getenv("E2E_LEGACY") ~= "1") and "vim.lsp.config" or "vim.lsp.start")
  io.stdout:write(string.format(
    "e2e ok: Neovim %s (%s): diagnostics match `dqlint lint` before and after an edit (%s); K shows the rule doc, omnifunc completes, a quick fix applies (%s); pipeline sources and DQX checks files outside a project find their repository\n",
    string.format("%d.%d.%d", vim.version().major, vim.version().minor, vim.version().patch), api, table.concat(counts, ", "), applied
  ))
end)

if not ok then
  fail(tostring(err))
else
  local all = vim.lsp.get_clients or vim.lsp.get_active_clients
  for _, client in ipairs(all()) do
    vim.lsp.stop_client(client.id)
  end
  vim.wait(2000, function()
    return #all() == 0
  end, 50)
  vim.cmd("qall!")
end
