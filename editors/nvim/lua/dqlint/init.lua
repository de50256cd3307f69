-- dqlint language server for Neovim: `require("dqlint").setup(opts)`.
-- Uses the API the running Neovim has:
--   0.11+     registers the server with vim.lsp.config/vim.lsp.enable;
--   0.8-0.10  starts it with vim.lsp.start from a FileType autocommand;
--   0.7       starts one client per project with vim.lsp.start_client and
--             attaches buffers with vim.lsp.buf_attach_client.
-- Either way the server runs only for buffers of a project: below a folder
-- holding lhp.yaml (else dqlint.toml, databricks.yml or .dqx/config.yml),
-- or a pipeline source / DQX checks file in a repository without them.

local M = {}

M.defaults = {
  -- The command that starts the server.
  cmd = { "dqlint", "server" },
  filetypes = { "yaml", "json", "sql", "python" },
  -- Sent as initializationOptions (and on changes as settings).
  envs = {},
  select = {},
  ignore = {},
  -- Called after dqlint's own on_attach (K and 'omnifunc' before 0.10).
  on_attach = nil,
  -- Force the FileType-autocommand path even on 0.11+ (tests, odd setups).
  legacy = false,
}

local uv = vim.uv or vim.loop

--- The nearest folder above `dir` holding one of `names` (vim.fs is 0.8+).
local function upward(dir, names)
  while true do
    for _, name in ipairs(names) do
      if uv.fs_stat(dir .. "/" .. name) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

-- The imports a DLT / Lakeflow pipeline source or DQX code starts with.
local PIPELINE_IMPORTS = {
  "^%s*import%s+dlt%f[^%w_]",
  "^%s*from%s+dlt%s+import%f[^%w_]",
  "^%s*from%s+pyspark%s+import.*%f[%w_]pipelines%f[^%w_]",
  "^%s*import%s+pyspark%.pipelines%f[^%w_]",
  "^%s*from%s+pyspark%.pipelines%f[^%w_]",
  "^%s*import%s+databricks%.labs%.dqx%f[^%w_]",
  "^%s*from%s+databricks%.labs%.dqx%f[^%w_]",
}

--- Whether the buffer is a pipeline source or a DQX checks file (its
--- first 500 lines say so).
function M.claims(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, 500, false)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name:match("%.py$") or vim.bo[bufnr].filetype == "python" then
    for _, line in ipairs(lines) do
      for _, pattern in ipairs(PIPELINE_IMPORTS) do
        if line:match(pattern) then
          return true
        end
      end
    end
    return false
  end
  local check, fn = false, false
  for _, line in ipairs(lines) do
    check = check or line:match("^%s*%-?%s*check:%s*$") ~= nil or line:match('"check"%s*:%s*{') ~= nil
    fn = fn or line:match("^%s+function:%s*%S") ~= nil or line:match('"function"%s*:') ~= nil
  end
  return check and fn
end

--- The project root of the buffer's file: the folder holding lhp.yaml,
--- else dqlint.toml, databricks.yml or .dqx/config.yml; for a pipeline
--- source or DQX checks file outside them, its repository (or folder).
function M.root_of(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" then
    return nil
  end
  local dir = vim.fn.fnamemodify(name, ":p:h")
  local root = upward(dir, { "lhp.yaml" }) or upward(dir, { "dqlint.toml", "databricks.yml", ".dqx/config.yml" })
  if root then
    return root
  end
  if M.claims(bufnr) then
    return upward(dir, { ".git" }) or dir
  end
  return nil
end

local root_of = M.root_of

-- Neovim 0.7 has no vim.lsp.start: one client per project root, started
-- on the first buffer and attached to the next ones.
local clients_by_root = {}

local function start_0_7(config, root, bufnr)
  local id = clients_by_root[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client({
      name = config.name,
      cmd = config.cmd,
      root_dir = root,
      init_options = config.init_options,
      settings = config.settings,
      on_attach = config.on_attach,
      on_exit = function()
        clients_by_root[root] = nil
      end,
    })
    if id == nil then
      vim.notify("dqlint: cannot start `" .. config.cmd[1] .. "`", vim.log.levels.ERROR)
      return
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
end

--- What Neovim 0.10+ sets by itself when a server attaches, for older ones:
--- `K` shows the hover (the rule's documentation on a finding; without it
--- 0.7-0.9 run 'keywordprg', i.e. `man`) and 'omnifunc' completes from the
--- server (0.7 leaves it empty). A `K` the user mapped in the buffer and an
--- 'omnifunc' already set are kept.
function M.on_attach(client, bufnr)
  if vim.fn.has("nvim-0.10") == 1 then
    return
  end
  if client.server_capabilities == nil or client.server_capabilities.hoverProvider then
    local existing = vim.fn.maparg("K", "n", false, true)
    if type(existing) ~= "table" or existing.buffer ~= 1 then
      vim.keymap.set("n", "K", vim.lsp.buf.hover, { buffer = bufnr, desc = "dqlint: hover" })
    end
  end
  if vim.api.nvim_buf_get_option(bufnr, "omnifunc") == "" then
    vim.api.nvim_buf_set_option(bufnr, "omnifunc", "v:lua.vim.lsp.omnifunc")
  end
end

local function server_settings(opts)
  return { envs = opts.envs, select = opts.select, ignore = opts.ignore }
end

--- The client configuration, shared by both ways of starting the server.
function M.config(opts)
  opts = vim.tbl_deep_extend("force", M.defaults, opts or {})
  return {
    name = "dqlint",
    cmd = opts.cmd,
    filetypes = opts.filetypes,
    init_options = server_settings(opts),
    settings = { dqlint = server_settings(opts) },
    on_attach = function(client, bufnr)
      M.on_attach(client, bufnr)
      if opts.on_attach then
        opts.on_attach(client, bufnr)
      end
    end,
  }, opts
end

function M.setup(opts)
  local config, resolved = M.config(opts)
  if vim.fn.executable(config.cmd[1]) ~= 1 then
    vim.notify("dqlint: `" .. config.cmd[1] .. "` is not executable; set `cmd` in require('dqlint').setup()", vim.log.levels.WARN)
  end

  if vim.lsp.config ~= nil and vim.lsp.enable ~= nil and not resolved.legacy then
    -- 0.11+: start only when the buffer is inside an LHP project.
    config.root_dir = function(bufnr, on_dir)
      local root = root_of(bufnr)
      if root then
        on_dir(root)
      end
    end
    vim.lsp.config("dqlint", config)
    vim.lsp.enable("dqlint")
    return
  end

  local group = vim.api.nvim_create_augroup("dqlint", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = config.filetypes,
    callback = function(args)
      local root = root_of(args.buf)
      if not root then
        return
      end
      if vim.lsp.start == nil then
        start_0_7(config, root, args.buf)
        return
      end
      -- vim.lsp.start reuses a running client with the same name and root.
      vim.lsp.start({
        name = config.name,
        cmd = config.cmd,
        root_dir = root,
        init_options = config.init_options,
        settings = config.settings,
        on_attach = config.on_attach,
      }, { bufnr = args.buf })
    end,
  })
end

return M
