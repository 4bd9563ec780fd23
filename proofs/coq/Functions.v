(** * Functions: inlining terminates exactly when no recursion is reachable
    (spec/graph.rst, sections 1.5 and 3.6, GRAPH-FUNCTIONS).

    The model's local functions (the main graph among them) are numbered
    [0 .. nfun-1]; [calls f] lists the call sites of [f]'s body, nested
    graphs included, by the function each calls (a list: a body has finitely
    many call sites). Inlining replaces every call site by a copy of the
    callee's body, whose call sites are then inlined in turn: its result is
    the tree of expanded bodies ([itree]). [inline fuel f] builds that tree
    when every chain of calls from [f] is shorter than [fuel], and fails
    otherwise; inlining terminates when some [fuel] suffices.

    Theorem [inlining_terminates_iff]: inlining the main graph terminates
    exactly when no function reachable from it calls itself, directly or
    through others. Since a body's call sites form a finite list, the
    finitely-branching argument (Koenig's lemma in the z3 route's prose) is
    not needed: a bound on chain lengths gives the fuel directly.
    [graph_functions_inlining_terminates]: GRAPH-FUNCTIONS (no function calls
    itself, reachable or not) suffices. Renaming of internal tensors is not
    modelled here: it does not affect termination. *)

From Coq Require Import List Arith Lia.
Import ListNotations.

Section Inlining.

(** The number of functions; each is numbered below it. *)
Variable nfun : nat.
(** The functions called by each function's body, one entry a call site. *)
Variable calls : nat -> list nat.
(** The main graph, itself a vertex of the call graph. *)
Variable main : nat.

Definition calls_within : Prop := forall f g, f < nfun -> In g (calls f) -> g < nfun.

(** [chain k f h]: a chain of [k] calls leads from [f] to [h]. *)
Inductive chain : nat -> nat -> nat -> Prop :=
  | chain_refl : forall f, chain 0 f f
  | chain_call : forall k f g h, In g (calls f) -> chain k g h -> chain (S k) f h.

(** Recursion reachable from the main graph: a function the main graph
    reaches by calls calls itself through one or more calls. *)
Definition reachable_recursion : Prop :=
  exists f k c, chain k main f /\ chain (S c) f f.

(** The tree of expanded bodies: a function and the expansions of its call
    sites, in order. *)
Inductive itree : Type := INode : nat -> list itree -> itree.

Fixpoint all_some {A : Type} (l : list (option A)) : option (list A) :=
  match l with
  | [] => Some []
  | Some x :: l' => option_map (cons x) (all_some l')
  | None :: _ => None
  end.

(** Inlining with a bound on the depth of expansion: [None] when a call
    site is still pending at depth [fuel]. *)
Fixpoint inline (fuel f : nat) : option itree :=
  match fuel with
  | 0 => None
  | S n => option_map (INode f) (all_some (map (inline n) (calls f)))
  end.

Definition inlining_terminates : Prop := exists fuel t, inline fuel main = Some t.

(** ** Lemmas *)

Lemma all_some_none : forall {A : Type} (l : list (option A)) xs,
  all_some l = Some xs -> forall x, In x l -> x <> None.
Proof.
  intros A l. induction l as [| [a |] l IH]; intros xs H x Hin; simpl in *.
  - destruct Hin.
  - destruct Hin as [<- | Hin]; [discriminate |].
    destruct (all_some l) as [ys |] eqn:E; [| discriminate]. apply (IH ys); auto.
  - discriminate.
Qed.

Lemma all_some_some : forall {A : Type} (l : list (option A)),
  (forall x, In x l -> x <> None) -> exists xs, all_some l = Some xs.
Proof.
  intros A l. induction l as [| [a |] l IH]; intros H; simpl.
  - exists []. reflexivity.
  - destruct IH as [ys E]; [intros x Hx; apply H; right; exact Hx |].
    rewrite E. exists (a :: ys). reflexivity.
  - exfalso. apply (H None); [left; reflexivity | reflexivity].
Qed.

Lemma chain_app : forall a b f g h, chain a f g -> chain b g h -> chain (a + b) f h.
Proof.
  intros a b f g h H. induction H as [f | k f g' h' Hc _ IH]; intros Hb; simpl; auto.
  apply (chain_call _ f g'); auto.
Qed.

Lemma chain_snoc : forall k f g h, chain k f g -> In h (calls g) -> chain (S k) f h.
Proof.
  intros k f g h H Hc. rewrite <- Nat.add_1_r. apply (chain_app k 1 f g h); auto.
  apply (chain_call 0 g h h); auto. constructor.
Qed.

(** Going round a cycle [m] times. *)
Lemma chain_pump : forall c f, chain (S c) f f -> forall m, chain (m * S c) f f.
Proof.
  intros c f H m. induction m as [| m IH]; simpl; [constructor |].
  apply (chain_app (S c) (m * S c) f f f); auto.
Qed.

(** A tree built with [fuel] bounds every chain of calls by [fuel]. *)
Lemma inline_bounds_chains : forall fuel f t, inline fuel f = Some t ->
  forall k h, chain k f h -> k < fuel.
Proof.
  induction fuel as [| n IH]; intros f t H k h Hk; simpl in H; [discriminate |].
  destruct (all_some (map (inline n) (calls f))) as [ts |] eqn:E; [| discriminate].
  destruct Hk as [f | k f g h Hg Hk]; [lia |].
  assert (Hn : inline n g <> None).
  { apply (all_some_none _ ts E). apply in_map. exact Hg. }
  destruct (inline n g) as [tg |] eqn:Eg; [| contradiction].
  pose proof (IH g tg Eg k h Hk). lia.
Qed.

(** Without reachable recursion, a function [f] reached from the main graph
    along the pairwise-distinct ancestors [vis] expands within
    [nfun - length vis] steps: each callee is a new ancestor, and there are
    at most [nfun] distinct functions. *)
Lemma inline_no_recursion : forall n f vis,
  calls_within -> ~ reachable_recursion ->
  NoDup (f :: vis) -> (forall x, In x (f :: vis) -> x < nfun) ->
  (forall x, In x vis -> exists k, chain (S k) x f) ->
  (exists k, chain k main f) ->
  nfun - length vis <= n ->
  exists t, inline n f = Some t.
Proof.
  induction n as [| n IH]; intros f vis Hw Hnr Hnd Hlt Hanc [k0 Hr] Hn.
  - exfalso.
    assert (Hlen : length (f :: vis) <= length (seq 0 nfun)).
    { apply NoDup_incl_length; auto. intros x Hx. apply in_seq. specialize (Hlt x Hx). lia. }
    rewrite seq_length in Hlen. simpl in Hlen. lia.
  - simpl.
    assert (Hall : forall x, In x (map (inline n) (calls f)) -> x <> None).
    { intros x Hx. apply in_map_iff in Hx. destruct Hx as [g [<- Hg]].
      assert (Hgf : ~ In g (f :: vis)).
      { intros [-> | Hin].
        - apply Hnr. exists g, k0, 0. split; auto. apply (chain_call 0 g g g); auto. constructor.
        - destruct (Hanc g Hin) as [c Hc]. apply Hnr. exists g, (S k0), (S c).
          split; [apply (chain_snoc k0 main f g); auto | apply (chain_snoc (S c) g f g); auto]. }
      assert (Hflt : f < nfun) by (apply Hlt; left; reflexivity).
      assert (Hlen : length (f :: vis) <= length (seq 0 nfun)).
      { apply NoDup_incl_length; auto. intros x Hx. apply in_seq. specialize (Hlt x Hx). lia. }
      rewrite seq_length in Hlen. simpl in Hlen.
      destruct (IH g (f :: vis)) as [t Ht]; auto.
      + constructor; auto.
      + intros x [<- | Hx]; [apply (Hw f g); auto | apply Hlt; exact Hx].
      + intros x [<- | Hx].
        * exists 0. apply (chain_call 0 f g g); auto. constructor.
        * destruct (Hanc x Hx) as [c Hc]. exists (S c). apply (chain_snoc (S c) x f g); auto.
      + exists (S k0). apply (chain_snoc k0 main f g); auto.
      + simpl. lia.
      + rewrite Ht. discriminate. }
    destruct (all_some_some _ Hall) as [ts E]. rewrite E. exists (INode f ts). reflexivity.
Qed.

(** ** The theorems *)

(** Inlining the main graph terminates exactly when no function reachable
    from it is recursive. Premises: the functions are numbered below
    [nfun], the main graph among them, and every call is of one of them. *)
Theorem inlining_terminates_iff :
  calls_within -> main < nfun -> (inlining_terminates <-> ~ reachable_recursion).
Proof.
  intros Hw Hm. split.
  - intros [fuel [t Ht]] [f [k [c [Hk Hc]]]].
    pose proof (chain_app k (fuel * S c) main f f Hk (chain_pump c f Hc fuel)) as Hlong.
    pose proof (inline_bounds_chains fuel main t Ht _ f Hlong). nia.
  - intros Hnr. exists nfun.
    apply (inline_no_recursion nfun main []); auto.
    + constructor; [intros [] | constructor].
    + intros x [<- | []]. exact Hm.
    + intros x [].
    + exists 0. constructor.
    + simpl. lia.
Qed.

(** GRAPH-FUNCTIONS (no function calls itself, directly or through other
    functions, whether the main graph reaches it or not) is sufficient:
    under it inlining the main graph terminates. *)
Theorem graph_functions_inlining_terminates :
  calls_within -> main < nfun -> (forall f c, ~ chain (S c) f f) -> inlining_terminates.
Proof.
  intros Hw Hm Hnorec. apply (proj2 (inlining_terminates_iff Hw Hm)).
  intros [f [k [c [_ Hc]]]]. apply (Hnorec f c Hc).
Qed.

End Inlining.
