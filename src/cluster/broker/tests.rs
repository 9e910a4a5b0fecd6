use super::*;

#[test]
fn a_host_is_lost_to_its_silence_only_while_the_world_hears_itself() {
    let now = Instant::now();
    let ago = |d: Duration| now.checked_sub(d).unwrap();
    let mut hosts = Hosts::default();
    hosts
        .heard
        .insert("quiet".into(), ago(wire::HOST_LOST_AFTER * 2));
    hosts.heard.insert("alive".into(), now);
    // A world that has not heard its own beat lately cannot hear anyone: nobody's silence
    // counts, and the hosts have as long again from when it hears itself.
    assert!(hosts.lost(now).is_empty());
    hosts.own_beat(ago(wire::AWAY_AFTER * 2));
    assert!(hosts.lost(now).is_empty());
    assert_eq!(hosts.heard["quiet"], now);
    // One that hears itself lets a quiet host go, numbered.
    hosts
        .heard
        .insert("quiet".into(), ago(wire::HOST_LOST_AFTER * 2));
    hosts.own_beat(now);
    assert_eq!(hosts.lost(now), ["quiet"]);
    assert_eq!(hosts.heard.keys().collect::<Vec<_>>(), ["alive"]);
    assert_eq!(hosts.forgotten.get("quiet").map(|f| f.0), Some(1));
    // Greeting again, it is in the world.
    hosts.greeted("quiet".into(), now);
    assert!(hosts.forgotten.is_empty());
    // A host let go long ago is forgotten in turn.
    hosts
        .forgotten
        .insert("old".into(), (2, ago(FORGOTTEN_FOR * 2)));
    hosts.lost(now);
    assert!(hosts.forgotten.is_empty());
}

fn message(subject: String, body: &impl serde::Serialize) -> async_nats::Message {
    let payload: bytes::Bytes = serde_json::to_vec(body).unwrap().into();
    async_nats::Message {
        subject: subject.into(),
        reply: None,
        length: payload.len(),
        payload,
        headers: None,
        status: None,
        description: None,
    }
}

#[test]
fn a_greeting_names_the_host_its_subject_names_and_speaks_this_protocol() {
    let ours = Hello::ours("host1", None);
    let greeted = greeting(&message(wire::greet("host1"), &ours));
    assert_eq!(greeted.map(|h| h.host).as_deref(), Some("host1"));
    // In another host's name, on one's own subject: nobody's.
    assert!(greeting(&message(wire::greet("host2"), &ours)).is_none());
    let older = Hello {
        protocol: wire::PROTOCOL - 1,
        ..ours.clone()
    };
    assert!(greeting(&message(wire::greet("host1"), &older)).is_none());
    assert!(greeting(&message(wire::HELLO.to_owned(), &ours)).is_none());
}

#[test]
fn each_answer_names_the_request_it_answers_and_lines_held_are_bounded() {
    let link = Link::default();
    assert!(link.ask(1));
    assert!(link.ask(4));
    assert_eq!(link.answered(), 1);
    assert_eq!(link.answered(), 4);
    for seq in 0..wire::LINES_HELD as u64 {
        assert!(link.ask(seq));
    }
    assert!(!link.ask(99));
}

/// What a room hears goes once in a batch, with every connection that hears it, and never
/// ahead of what a connection was told before it.
#[test]
fn a_shared_notice_is_told_once_to_all_its_hearers_in_each_ones_order() {
    let said: Arc<str> = "Ann says, \"hi\"".into();
    let mut batch = Batch::default();
    batch.add(1, Out::Line(said.clone()));
    batch.add(2, Out::Line("Bob arrives.".into()));
    batch.add(3, Out::Line(said.clone()));
    // Connection 2 was told something after the shared line began: it hears the line after.
    batch.add(2, Out::Line(said.clone()));
    batch.add(4, Out::Line(said.clone()));
    // The same words made afresh are another notice.
    batch.add(5, Out::Line("Ann says, \"hi\"".into()));
    let told: Vec<(Vec<u64>, String)> = batch
        .told
        .iter()
        .map(|(conns, telling)| {
            let Telling::Out(Out::Line(line)) = telling else {
                panic!("a line")
            };
            (conns.clone(), line.to_string())
        })
        .collect();
    let hi = "Ann says, \"hi\"".to_owned();
    assert_eq!(
        told,
        [
            (vec![1, 3], hi.clone()),
            (vec![2], "Bob arrives.".to_owned()),
            (vec![2, 4], hi.clone()),
            (vec![5], hi),
        ]
    );
}
