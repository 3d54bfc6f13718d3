import { cx } from '../../../sandbox/kit/site-app';

/** Generated-looking class names (like CSS-in-JS output), shared by markup, stylesheet and client script. */
const names = [
  'body', 'header', 'headerInner', 'brand', 'brandName', 'search', 'nav', 'navItem', 'navActive', 'navIcon', 'badge', 'signout',
  'main', 'home', 'profileLayout', 'side', 'card', 'pad', 'cardTitle', 'btn', 'btnPrimary', 'btnGhost', 'btnSm', 'btnDanger',
  'avatar', 'avatarLg', 'avatarSm', 'muted', 'small', 'srOnly', 'cover', 'meCard', 'meName', 'meStats', 'stat',
  'post', 'postHead', 'postWho', 'postName', 'postMeta', 'postText', 'postStats', 'postActions', 'action', 'pressed', 'repostHead',
  'vis', 'composeBox', 'composeTrigger', 'backdrop', 'dialog', 'dialogHead', 'dialogBody', 'dialogFoot', 'dialogClose', 'dlgOpen',
  'editor', 'counter', 'dd', 'ddLabel', 'ddButton', 'ddList', 'ddOption', 'ddActive', 'toastWrap', 'toast', 'toastClose',
  'spinner', 'spin', 'loading', 'feed', 'loadMoreWrap', 'loadMore', 'caughtUp', 'pager', 'pagerLink', 'pagerCurrent', 'pagerDisabled',
  'peopleGrid', 'personCard', 'personCover', 'personName', 'profileHead', 'profileBody', 'profileName', 'headline', 'counts', 'profileActions',
  'section', 'comments', 'comment', 'commentBody', 'commentForm', 'field', 'textarea', 'likedByAuthor',
  'msgLayout', 'convList', 'convItem', 'convActive', 'convUnread', 'convSnippet', 'thread', 'threadHead', 'threadMsgs', 'bubble', 'bubbleMe',
  'sendForm', 'empty', 'notifList', 'notifItem', 'notifUnread', 'notifDot', 'notifText', 'likeForm', 'likeCount', 'repostForm',
  'composeForm', 'notifMount', 'pickerInput', 'pickerList', 'suggest', 'suggestItem', 'footer', 'heading', 'pageHead', 'confirmText',
] as const;

export type ClassName = (typeof names)[number];

export const C = Object.fromEntries(names.map((n) => [n, cx(`orbit-${n}`)])) as Record<ClassName, string>;
