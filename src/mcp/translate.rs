//! A verb as an MCP tool, and its answer as a tool's result: what a spec fixes (the Werewolf
//! tools, `createGame`'s input schema) exactly as written, the rest generated from the verb.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject, Tool, ToolAnnotations};
use serde_json::Value;

use moot_kernel::verbs::{Json, Reply, Toolset, VerbEntry, VerbError};

fn object(schema: schemars::Schema) -> JsonObject {
    match serde_json::to_value(schema) {
        Ok(Value::Object(m)) => m,
        _ => JsonObject::new(),
    }
}

/// A schema a spec fixes, as written (checked when the registry is tested).
fn fixed(json: &str) -> JsonObject {
    match serde_json::from_str(json) {
        Ok(Value::Object(m)) => m,
        _ => panic!("a fixed tool schema is not a JSON object: {json}"),
    }
}

/// A tool a spec gives whole (a Werewolf tool), exactly as given.
#[expect(
    clippy::expect_used,
    reason = "the definitions are constants in moot's source, built once when the tool list is \
              made (the registry's tests build every one)"
)]
fn defined(def: Value) -> Tool {
    let text = |k: &str| def[k].as_str().map(str::to_owned);
    let object = |k: &str| match &def[k] {
        Value::Object(m) => m.clone(),
        v => panic!("a defined tool's {k} is not an object: {v}"),
    };
    let mut tool = Tool::new(
        text("name").expect("a defined tool has a name"),
        text("description").unwrap_or_default(),
        Arc::new(object("inputSchema")),
    )
    .with_raw_output_schema(Arc::new(object("outputSchema")));
    if let Some(title) = text("title") {
        tool = tool.with_title(title);
    }
    let annotations: ToolAnnotations = serde_json::from_value(def["annotations"].clone())
        .expect("a defined tool's annotations are MCP's");
    tool.with_annotations(annotations)
}

/// The tool for a verb: what a spec fixes, exactly; the rest generated from the verb.
pub fn tool(e: &VerbEntry) -> Tool {
    if let Some(def) = e.tool.definition {
        return defined(def(e.tool_name()));
    }
    let input = e
        .tool
        .input_schema
        .map_or_else(|| object((e.args_schema)()), fixed);
    let output = e.tool.output_schema.map_or_else(
        || {
            let mut output = object((e.output_schema)());
            // MCP wants an object at the root; results that are one of several shapes (look)
            // are objects in every shape, so saying so is true.
            output
                .entry("type")
                .or_insert_with(|| Value::String("object".into()));
            output
        },
        fixed,
    );
    // What it needs and what comes back; how to type it on telnet is no help to an agent.
    let description = if e.tool_description.is_empty() {
        e.summary
    } else {
        e.tool_description
    };
    let mut tool = Tool::new(e.tool_name(), description, Arc::new(input));
    if let Some(title) = e.tool.title {
        tool = tool.with_title(title);
    }
    if let Some(meta) = e.tool.meta {
        tool = tool.with_meta(MetaObject(fixed(meta)));
    }
    tool.with_raw_output_schema(Arc::new(output))
        .with_annotations(
            ToolAnnotations::new()
                .read_only(e.read_only)
                .destructive(false)
                .idempotent(e.read_only)
                .open_world(false),
        )
}

/// The tools of `sets`, with the set each belongs to.
pub fn tools(sets: &[Toolset]) -> Vec<(Toolset, Tool)> {
    crate::games::tools_in(sets)
        .filter_map(|e| Some((e.toolset?, tool(e))))
        .collect()
}

/// A tool's answer, in MCP's `CallToolResult` shape (field for field, in rmcp's order), with
/// the structured content as the JSON text the verb wrote: the direct path writes it into the
/// response as it is; rmcp's path, which wants a tree of values, converts it ([`Answer::into_rmcp`]).
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    result_type: &'static str,
    pub(super) content: Vec<ContentBlock>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) structured_content: Option<Json>,
    is_error: bool,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub(super) meta: Option<MetaObject>,
}

impl Answer {
    fn new(is_error: bool, text: String, structured_content: Option<Json>) -> Answer {
        Answer {
            result_type: "complete",
            content: vec![ContentBlock::text(text)],
            structured_content,
            is_error,
            meta: None,
        }
    }

    pub fn success(text: String, structured_content: Option<Json>) -> Answer {
        Answer::new(false, text, structured_content)
    }

    /// A refusal in words, as a tool's result the model can read.
    pub fn refused(text: String) -> Answer {
        Answer::new(true, text, None)
    }

    /// The answer as rmcp's type, for the requests rmcp serves.
    pub fn into_rmcp(self) -> CallToolResult {
        let mut out = if self.is_error {
            CallToolResult::error(self.content)
        } else {
            CallToolResult::success(self.content)
        };
        // The text was written by serde_json from a value of ours: it always reads back.
        out.structured_content = self
            .structured_content
            .and_then(|raw| serde_json::from_str(raw.get()).ok());
        out.meta = self.meta;
        out
    }
}

/// `value` as JSON text (a refusal's or a wait's data, made as a tree of values).
pub(super) fn json_of(value: &Value) -> Option<Json> {
    serde_json::value::to_raw_value(value).ok()
}

/// A verb's answer as a tool result: people's text as content (or, for a spec's tool, the
/// JSON), the data as structuredContent; a refusal is an `isError` result the model can read.
pub(super) fn result(r: Result<Reply<Json>, VerbError>, json_text: bool) -> Answer {
    // A spec's tool answers every refusal in its shape, one met on the way here too (a bug).
    let r = r.map_err(|e| {
        if json_text {
            let now = moot_kernel::world::sessions::iso(std::time::SystemTime::now());
            moot_kernel::verbs::shaped(now, e)
        } else {
            e
        }
    });
    match r {
        // A spec's tool (a Werewolf tool) puts its JSON in the text too (Werewolf's fix 2), for clients
        // that read only text.
        Ok(reply) if json_text => Answer::success(reply.data.get().to_owned(), Some(reply.data)),
        Ok(reply) => Answer::success(reply.text.join("\n"), Some(reply.data)),
        // A refusal with a shape: the JSON as text too, for clients that read only text.
        Err(VerbError {
            data: Some(data), ..
        }) => Answer::new(true, data.to_string(), json_of(&data)),
        Err(e) => Answer::new(true, e.message, None),
    }
}
