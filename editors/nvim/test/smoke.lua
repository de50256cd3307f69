-- Headless check of the Neovim client against the real server (Neovim
-- 0.9+, for `-l` and vim.fs; CI runs e2e.sh, which also covers 0.7):
--   DQLINT=path/to/dqlint nvim --headless --clean -l editors/nvim/test/smoke.lua [legacy]
-- Creates an LHP project, opens a flowgroup, waits for dqlint's diagnostics.

local here = vim.fs.dirname(vim.fs.normalize(debug.getinfo(1, "S").source:sub(2)))
vim.opt.runtimepath:prepend(vim.fs.dirname(here))

local dqlint = os.getenv("DQLINT") or "dqlint"
local legacy = arg[1] == "legacy"

local function fail(message)
  io.stderr:write("FAIL: " .. message .. "\n")
  os.exit(1)
end

local function write(path, text)
  vim.fn.mkdir(vim.fs.dirname(path), "p")
  local file = assert(io.open(path, "w"))
  file:write(text)
  file:close()
end

local root = vim.fn.tempname()
write(root .. "/lhp.yaml", 'name: demo\nversion: "1.0"\n')
write(root .. "/substitutions/dev.yaml", "dev:\n  catalog: acme_dev\n")
write(root .. "/expectations/orders.yaml", "order_id IS NOT NULL:\n  action: drop\n  name: valid_order_id\n")
write(root .. "/pipelines/bronze/orders.yaml", table.concat({
  "pipeline: bronze",
  "flowgroup: orders",
  "actions:",
  "  - name: load_orders",
  "    type: load",
  "    source:",
  "      type: delta",
  "      catalog: ${catalog}",
  "      schema: raw",
  "      table: orders",
  "    target: v_orders_raw",
  "  - name: orders_dq",
  "    type: transform",
  "    transform_type: data_quality",
  "    source: v_orders_raw",
  "    target: v_orders_validated",
  "    expectations_file: expectations/orders.yaml",
  "    readMode: batch",
  "  - name: write_orders",
  "    type: write",
  "    source: v_orders_validated",
  "    write_target:",
  "      type: streaming_table",
  "      catalog: ${catalog}",
  "      schema: bronze",
  "      table: orders",
  "",
}, "\n"))
-- A YAML file outside any LHP project must not start the server.
local stray = vim.fn.tempname() .. ".yaml"
write(stray, "a: b\n")

require("dqlint").setup({ cmd = { dqlint, "server" }, envs = { "dev" }, legacy = legacy })

vim.cmd.edit(stray)
vim.bo.filetype = "yaml"
vim.wait(500)
if #vim.lsp.get_clients({ name = "dqlint" }) > 0 then
  fail("the server started for a file outside any LHP project")
end

vim.cmd.edit(root .. "/pipelines/bronze/orders.yaml")
local buf = vim.api.nvim_get_current_buf()
local ok = vim.wait(15000, function()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.source == "dqlint" and d.code == "DQ105" then
      return true
    end
  end
  return false
end, 50)
if not ok then
  fail("no DQ105 diagnostic from dqlint; got " .. vim.inspect(vim.diagnostic.get(buf)))
end
local d = vim.tbl_filter(function(x) return x.code == "DQ105" end, vim.diagnostic.get(buf))[1]
if d.lnum ~= 17 or d.col ~= 14 then
  fail("DQ105 at " .. d.lnum .. ":" .. d.col .. ", expected 17:14")
end
local clients = vim.lsp.get_clients({ name = "dqlint", bufnr = buf })
if #clients ~= 1 or clients[1].config.root_dir ~= vim.fn.resolve(root) and clients[1].config.root_dir ~= root then
  fail("expected one dqlint client rooted at the project, got " .. vim.inspect(vim.tbl_map(function(c) return c.config.root_dir end, clients)))
end

-- Fix it in the buffer: the finding goes away without saving.
vim.api.nvim_buf_set_lines(buf, 17, 18, false, { "    readMode: stream" })
ok = vim.wait(15000, function()
  for _, x in ipairs(vim.diagnostic.get(buf)) do
    if x.code == "DQ105" then
      return false
    end
  end
  return true
end, 50)
if not ok then
  fail("DQ105 did not clear after the edit")
end

io.stdout:write("ok: dqlint diagnostics in Neovim " .. tostring(vim.version()) .. (legacy and " (vim.lsp.start)" or " (vim.lsp.config)") .. "\n")
for _, client in ipairs(vim.lsp.get_clients({ name = "dqlint" })) do
  vim.lsp.stop_client(client.id)
end
vim.wait(1000, function() return #vim.lsp.get_clients({ name = "dqlint" }) == 0 end)
os.exit(0)
